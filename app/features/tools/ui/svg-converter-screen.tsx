// The SVG converter: format, scale and background choices, the rendered preview and the export.
// Converting needs an account; visitors see the form and are told to sign in.
import { Link } from '@remix-run/react'
import { useRef } from 'react'
import { TOOLS, type SvgFormat } from '~/catalog/tools'
import type { Viewer } from '~/features/account/viewer'
import { filenameFromContentDisposition } from './content-disposition'
import { DownloadBox } from './download-box'
import { resultAddresses, type ResultAddresses, type ToolPageResult } from './page-result'
import { releaseShownResult, shownResult } from './shown-result'
import { convertedFilename, formatPreviewLabel, svgBackgroundField } from './svg-options'
import { asFormat, SvgOptions, useSvgChoices } from './tool-options'
import { SVG_SIGN_IN_MESSAGE, SVG_SIGN_IN_TOAST } from './tool-messages'
import { useToolRun } from './use-tool-run'
import { useWorkspace } from './use-workspace'
import { StageCompare, StageResultImage, ToolWorkspace } from './workspace'

const tool = TOOLS['svg-converter']
const DONE_TITLE = 'Export ready'
export const SVG_LOGIN_PATH = `/login?from=${tool.path}`

interface Converted {
  /** Where it shows (its preview), opens in full and downloads. */
  at: ResultAddresses
  filename: string
  format: SvgFormat
  /** X-Facet-Note: librsvg drew what resvg could not. */
  note: string | null
}

/** What the run told about its drawing, under the download (librsvg drew what resvg could not). */
function RendererNote({ note }: { note?: string | null }) {
  return note ? (
    <p className="text-slate-600" data-testid="renderer-note">
      {note}
    </p>
  ) : null
}

export function SvgConverterScreen({ cost, viewer, pageResult }: { cost: number; viewer: Viewer | undefined; pageResult?: ToolPageResult }) {
  const fields = pageResult?.fieldValues
  const choices = useSvgChoices(fields)
  const { format, scale, transparent, background } = choices
  const signedIn = Boolean(viewer?.user)
  // The format actually sent: the select may change while the server works.
  const submittedFormat = useRef(format)
  const run = useToolRun<Converted>(tool, {
    headersOnly: true,
    interpret: async (response, resultUrl) => ({
      at: shownResult(response, resultUrl),
      filename: convertedFilename(filenameFromContentDisposition(response.header('Content-Disposition')), submittedFormat.current),
      format: submittedFormat.current,
      note: response.header('X-Facet-Note'),
    }),
    release: (result) => releaseShownResult(result.at),
  })
  const ws = useWorkspace(tool, run)
  const pageOk = pageResult?.ok ? pageResult : undefined

  const options = <SvgOptions choices={choices} />

  const chosenView = run.fileUrl ? (
    <figure className="m-0">
      <div className="flex justify-center overflow-hidden rounded-xl bg-slate-100 p-4">
        <img src={run.fileUrl} alt="Original SVG" className="block h-auto w-full object-contain" style={{ maxHeight: 'var(--stage-max)' }} data-testid="upload-preview" />
      </div>
      <figcaption className="mt-1 text-center text-xs text-slate-600">Original SVG · {formatPreviewLabel(format)} after converting</figcaption>
    </figure>
  ) : null

  const resultView = run.result && run.fileUrl ? (
    <>
      <StageCompare
        size={ws.size}
        before={{ src: run.fileUrl, alt: 'Original SVG', label: 'Original SVG' }}
        after={{ src: run.result.at.preview, alt: run.result.filename, label: run.result.filename }}
        fullSize={run.result.at.full}
      />
      <DownloadBox title={DONE_TITLE} href={run.result.at.download} filename={run.result.filename}>
        <p>
          {run.result.format.toUpperCase()} at {scale}×
        </p>
        <RendererNote note={run.result.note} />
      </DownloadBox>
    </>
  ) : null

  const pageResultView = pageOk ? (
    <>
      <StageResultImage at={resultAddresses(pageOk.resultUrl)} alt={pageOk.filename} checkerboard />
      <DownloadBox title={DONE_TITLE} href={pageOk.downloadUrl} filename={convertedFilename(pageOk.filename, asFormat(fields?.format))}>
        <RendererNote note={pageOk.note} />
      </DownloadBox>
    </>
  ) : null

  const notes = signedIn ? null : (
    <p className="text-sm text-slate-600">
      Converting SVG files needs a free account.{' '}
      <Link to={SVG_LOGIN_PATH} className="font-semibold text-indigo-700 underline underline-offset-2">
        Sign in or create one
      </Link>
      .
    </p>
  )

  return (
    <ToolWorkspace
      tool={tool}
      cost={cost}
      viewer={viewer}
      run={run}
      ws={ws}
      pageResult={pageResult}
      formLabel="Convert SVG"
      processLabel="Convert asset"
      busyLabel="Converting…"
      doneTitle={DONE_TITLE}
      onRun={(form) => {
        if (!signedIn) {
          run.refuse(SVG_SIGN_IN_MESSAGE, SVG_SIGN_IN_TOAST)
          return
        }
        form.set('format', format)
        submittedFormat.current = format
        form.set('scale', scale)
        const bg = svgBackgroundField(transparent, background)
        if (bg === null) form.delete('background')
        else form.set('background', bg)
        void run.run(form)
      }}
      options={options}
      notes={notes}
      chosenView={chosenView}
      resultView={resultView}
      pageResultView={pageResultView}
      needsSignIn={run.error === SVG_SIGN_IN_MESSAGE}
      signInPath={SVG_LOGIN_PATH}
    />
  )
}
