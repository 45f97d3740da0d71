// The background remover: upload, transparent or coloured backdrop, cutout preview and downloads.
import { useLoaderData } from '@remix-run/react'
import { TOOLS } from '~/catalog/tools'
import { CorrectLink } from './correct-link'
import type { JobView } from '~/features/jobs/view'
import { madeWith } from '~/features/tools/models/model-choices'
import { MODEL_HEADER } from '~/features/jobs/view'
import type { Viewer } from '~/features/account/viewer'
import { trackEvent } from '~/features/analytics/track'
import { toast } from '~/ui/toast'
import { appliedColour, cutoutFilename, type BackgroundChoice } from './background-colour'
import { CHECKERBOARD_STYLE, renderColouredCutout, saveBlob } from './canvas-cutout'
import { filenameFromContentDisposition } from './content-disposition'
import { asksForComposition, CutoutOutputOptions } from './cutout-options'
import { DownloadBox } from './download-box'
import { resultAddresses, type ResultAddresses, type ToolPageResult } from './page-result'
import { releaseShownResult, shownResult } from './shown-result'
import { BackgroundOptions, ModelOptions, useBackgroundChoice } from './tool-options'
import { COLOURED_DOWNLOAD_FAILED, ERROR_TOAST_MS } from './tool-messages'
import { useToolRun } from './use-tool-run'
import { useWorkspace } from './use-workspace'
import { StageCompare, StageResultImage, ToolWorkspace } from './workspace'

const tool = TOOLS['background-remover']
const DONE_TITLE = 'Cutout ready'

interface Cutout {
  /** Where it shows (its preview), opens in full and downloads. */
  at: ResultAddresses
  /** X-Facet-Model and X-Facet-Note: which model made it, and why not the one asked for. */
  model: string | null
  note: string | null
  /** The server's download name when it composed the result (another type, a crop, a mask...). */
  filename: string | null
}

/** Which model made the cutout, and the note when it is not the one asked for. */
function ModelUsed({ model, note }: { model?: string | null; note?: string | null }) {
  if (!model) return null
  return (
    <p className="text-sm text-slate-600" data-testid="model-used">
      {madeWith(model)}
      {note ? ` ${note}` : ''}
    </p>
  )
}

export function BackgroundRemoverScreen({ cost, viewer, pageResult }: { cost: number; viewer: Viewer | undefined; pageResult?: ToolPageResult }) {
  const { choice, setChoice, custom, setCustom } = useBackgroundChoice()
  const run = useToolRun<Cutout>(tool, {
    headersOnly: true,
    interpret: async (response, resultUrl) => ({
      at: shownResult(response, resultUrl),
      model: response.header(MODEL_HEADER),
      note: response.header('X-Facet-Note'),
      filename: filenameFromContentDisposition(response.header('Content-Disposition')),
    }),
    release: (cutout) => releaseShownResult(cutout.at),
  })
  const ws = useWorkspace(tool, run)
  const colour = appliedColour(choice)
  const pageOk = pageResult?.ok ? pageResult : undefined
  // The job a page post (no JavaScript) made, for the way to its correction.
  const pageJobId = (useLoaderData() as { job?: JobView | null } | undefined)?.job?.id

  function choose(next: BackgroundChoice) {
    setChoice(next)
    const applied = appliedColour(next)
    // One event per colour actually applied, not one per keystroke in the custom field.
    if (applied && applied !== colour) trackEvent('bg_remove_color_selected', { color: applied })
  }

  async function downloadColoured() {
    if (!run.result || !colour) return
    try {
      // Drawn from the full resolution, fetched now (on demand), never from the preview.
      saveBlob(await renderColouredCutout(run.result.at.full, colour), cutoutFilename(colour))
      trackEvent('bg_remove_colored_download', { color: colour })
    } catch {
      toast({ ...COLOURED_DOWNLOAD_FAILED, variant: 'destructive', durationMs: ERROR_TOAST_MS })
    }
  }

  const options = (
    <>
      <BackgroundOptions choice={choice} custom={custom} onChoose={choose} onCustomChange={setCustom} />
      <ModelOptions chosen={pageResult?.fieldValues?.model} />
      <CutoutOutputOptions />
    </>
  )
  const composed = run.result?.filename != null && run.result.filename !== tool.downloadName

  const backdrop = colour ? { backgroundColor: colour } : CHECKERBOARD_STYLE
  const resultView =
    run.result && run.fileUrl ? (
      <>
        <StageCompare
          size={ws.size}
          before={{ src: run.fileUrl, alt: 'Original upload', label: 'Original' }}
          after={{ src: run.result.at.preview, alt: 'Cutout with the chosen background', label: 'Cutout', style: backdrop }}
          fullSize={run.result.at.full}
        />
        <DownloadBox
          title={DONE_TITLE}
          href={run.result.at.download}
          filename={run.result.filename ?? tool.downloadName}
          label={composed ? 'Download' : 'Download transparent PNG'}
          actions={
            <>
              {colour && !composed ? (
                <button
                  type="button"
                  onClick={() => void downloadColoured()}
                  className="inline-flex min-h-11 items-center justify-center rounded-lg border border-emerald-700 bg-white px-4 py-2 font-semibold text-emerald-800 hover:bg-emerald-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-800"
                  data-testid="download-coloured"
                >
                  Download with {colour} background
                </button>
              ) : null}
              <CorrectLink jobId={run.jobId} tool={tool.slug} />
            </>
          }
        >
          <p>
            {composed ? `${run.result.filename}, as you chose.` : `Transparent PNG at the original resolution${colour ? `, or ${cutoutFilename(colour)} on ${colour}` : ''}.`}
          </p>
        </DownloadBox>
        <ModelUsed model={run.result.model} note={run.result.note} />
      </>
    ) : null

  const pageResultView = pageOk ? (
    <>
      <StageResultImage at={resultAddresses(pageOk.resultUrl)} alt="Background removed result" checkerboard />
      <DownloadBox title={DONE_TITLE} href={pageOk.downloadUrl} filename={pageOk.filename} actions={<CorrectLink jobId={pageJobId} tool={tool.slug} />} />
      <ModelUsed model={pageOk.model} note={pageOk.note} />
    </>
  ) : null

  return (
    <ToolWorkspace
      tool={tool}
      cost={cost}
      viewer={viewer}
      run={run}
      ws={ws}
      pageResult={pageResult}
      formLabel="Remove background"
      processLabel="Remove background"
      busyLabel="Removing background…"
      doneTitle={DONE_TITLE}
      onRun={(form) => {
        // A plain cutout comes back transparent and colours are composited here, free of charge;
        // anything more (crop, shadow, mask, a background image, another type) the server composes.
        if (!asksForComposition(form)) {
          form.delete('background')
          form.delete('background_custom')
        }
        void run.run(form)
      }}
      options={options}
      resultView={resultView}
      pageResultView={pageResultView}
    />
  )
}

