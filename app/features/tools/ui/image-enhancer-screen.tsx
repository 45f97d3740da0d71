// The image enhancer: one action over the whole frame, a before/after preview (demo images until
// something is uploaded) and the enhanced download.
import type { CSSProperties } from 'react'
import { TOOLS } from '~/catalog/tools'
import type { Viewer } from '~/features/account/viewer'
import { CompareSlider } from '~/ui/compare-slider'
import { useHydrated } from '~/ui/use-hydrated'
import { filenameFromContentDisposition } from './content-disposition'
import { DownloadBox } from './download-box'
import { browserCanShow } from './file-checks'
import { resultAddresses, type ResultAddresses, type ToolPageResult } from './page-result'
import { releaseShownResult, shownResult } from './shown-result'
import { FormatOptions } from './tool-options'
import { useToolRun } from './use-tool-run'
import { useWorkspace } from './use-workspace'
import { StageCompare, StageResultImage, ToolWorkspace } from './workspace'

const tool = TOOLS['image-enhancer']
const DONE_TITLE = 'Enhancement ready'
export const VISITOR_ENHANCER_MESSAGE = 'Sign in to track usage credits.'

/** The demo shown before any upload: a soft, dull, low-resolution copy against the clean photo. */
export const DEMO_IMAGES = {
  before: '/demo/enhancer-before.webp',
  after: '/demo/enhancer-after.webp',
  width: 480,
  height: 480,
}

interface Enhanced {
  /** Where it shows (its preview), opens in full and downloads. */
  at: ResultAddresses
  filename: string
}

export function enhancedFilename(header: string | null): string {
  return filenameFromContentDisposition(header) ?? tool.downloadName
}

export function ImageEnhancerScreen({ cost, viewer, pageResult }: { cost: number; viewer: Viewer | undefined; pageResult?: ToolPageResult }) {
  const hydrated = useHydrated()
  const run = useToolRun<Enhanced>(tool, {
    headersOnly: true,
    interpret: async (response, resultUrl) => ({
      at: shownResult(response, resultUrl),
      filename: enhancedFilename(response.header('Content-Disposition')),
    }),
    release: (result) => releaseShownResult(result.at),
  })
  const ws = useWorkspace(tool, run)
  const pageOk = pageResult?.ok ? pageResult : undefined
  const signedIn = Boolean(viewer?.user)

  const resultView =
    run.result && run.file && run.fileUrl ? (
      <>
        <StageCompare
          size={ws.size}
          before={browserCanShow(run.file.type) ? { src: run.fileUrl, alt: 'Original upload', label: 'Original' } : null}
          after={{ src: run.result.at.preview, alt: 'Enhanced image', label: 'Enhanced' }}
          fullSize={run.result.at.full}
        />
        <DownloadBox title={DONE_TITLE} href={run.result.at.download} filename={run.result.filename} />
      </>
    ) : null

  const pageResultView = pageOk ? (
    <>
      <StageResultImage at={resultAddresses(pageOk.resultUrl)} alt="Enhanced image" />
      <DownloadBox title={DONE_TITLE} href={pageOk.downloadUrl} filename={pageOk.filename || tool.downloadName} />
    </>
  ) : null

  // The spec's demo: what the enhancer does, while nothing is uploaded (not on a page following a run
  // of the user's: its words would be wrong, and its pictures would share a slow link with the result).
  // With JavaScript its pictures are asked for once the page is hydrated, in a box of their size kept
  // from the start: on a slow link they would otherwise share it with the page's scripts (decision 199).
  // Without JavaScript the browser reads the <noscript> and shows them at once.
  const demoSlider = (
    <CompareSlider
      before={{ src: DEMO_IMAGES.before, alt: 'Demo photo before enhancement', label: 'Before' }}
      after={{ src: DEMO_IMAGES.after, alt: 'Demo photo after enhancement', label: 'After' }}
      width={DEMO_IMAGES.width}
      height={DEMO_IMAGES.height}
      className="mx-auto max-w-72"
    />
  )
  const demo =
    run.file || pageOk || run.status !== 'idle' ? null : (
      <div data-testid="demo-preview">
        {hydrated ? (
          demoSlider
        ) : (
          <div className="demo-awaiting-scripts mx-auto max-w-72" style={{ '--demo-aspect': `${DEMO_IMAGES.width} / ${DEMO_IMAGES.height}` } as CSSProperties}>
            <noscript>{demoSlider}</noscript>
          </div>
        )}
        <p className="mt-1 text-center text-xs text-slate-600">Demo image. Upload your own to see it enhanced.</p>
      </div>
    )

  return (
    <ToolWorkspace
      tool={tool}
      cost={cost}
      viewer={viewer}
      run={run}
      ws={ws}
      pageResult={pageResult}
      formLabel="Enhance image"
      processLabel="Enhance image"
      busyLabel="Enhancing image…"
      doneTitle={DONE_TITLE}
      onRun={(form) => {
        void run.run(form)
      }}
      options={<FormatOptions chosen={pageResult?.fieldValues?.format} />}
      notes={signedIn ? null : <p className="text-sm text-slate-600">{VISITOR_ENHANCER_MESSAGE}</p>}
      extra={demo}
      resultView={resultView}
      pageResultView={pageResultView}
    />
  )
}
