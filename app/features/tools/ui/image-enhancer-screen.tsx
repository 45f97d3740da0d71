// The image enhancer: one action over the whole frame, a before/after preview (demo images until
// something is uploaded) and the enhanced download.
import { TOOLS } from '~/features/tools/catalog'
import type { Viewer } from '~/features/viewer'
import { CompareSlider } from '~/ui/compare-slider'
import { filenameFromContentDisposition } from './content-disposition'
import { DownloadBox } from './download-box'
import { ErrorBox } from './error-box'
import { shownStatus, type ToolPageResult } from './page-result'
import { ProgressPanel } from './progress-panel'
import { StatusBadge } from './status-badge'
import { ToolForm } from './tool-form'
import { ToolHero } from './tool-hero'
import { CreditsLine, ProcessButton, ToolLayout } from './tool-layout'
import { UploadCard } from './upload-card'
import { useToolRun } from './use-tool-run'
import { UploadPreview } from './upload-preview'

const tool = TOOLS['image-enhancer']
export const VISITOR_ENHANCER_MESSAGE = 'Sign in to track usage credits.'

/** The demo shown before any upload: a soft, dull, low-resolution copy against the clean photo. */
export const DEMO_IMAGES = {
  before: '/demo/enhancer-before.webp',
  after: '/demo/enhancer-after.webp',
  width: 480,
  height: 480,
}

interface Enhanced {
  url: string
  filename: string
}

export function enhancedFilename(header: string | null): string {
  return filenameFromContentDisposition(header) ?? tool.downloadName
}

export function ImageEnhancerScreen({ cost, viewer, pageResult }: { cost: number; viewer: Viewer | undefined; pageResult?: ToolPageResult }) {
  const run = useToolRun<Enhanced>(tool, {
    interpret: async (response) => ({
      url: URL.createObjectURL(response.body),
      filename: enhancedFilename(response.header('Content-Disposition')),
    }),
    release: (result) => URL.revokeObjectURL(result.url),
  })
  const busy = run.status === 'processing'
  const shownPage = run.status === 'idle' && !run.error ? pageResult : undefined
  const pageOk = shownPage?.ok ? shownPage : undefined
  const balance = run.remaining ?? (shownPage ? shownPage.remaining : null) ?? viewer?.credits?.balance
  const signedIn = Boolean(viewer?.user)

  const controls = (
    <ToolForm
      label="Enhance image"
      onRun={(form) => {
        if (run.file) form.set(tool.fileField, run.file)
        void run.run(form)
      }}
    >
      <UploadCard tool={tool} file={run.file} onFile={run.selectFile} disabled={busy} aside={<StatusBadge tool={tool.slug} status={shownStatus(run.status, shownPage)} />} />
      <ProcessButton disabled={!run.file || busy} busy={busy} label="Enhance image" busyLabel="Enhancing image…" />
      <div className="space-y-1 text-sm">
        {signedIn ? null : <p className="text-slate-600">{VISITOR_ENHANCER_MESSAGE}</p>}
        <CreditsLine balance={balance} />
      </div>
      <ProgressPanel progress={run.progress} failed={run.status === 'error'} />
      <ErrorBox message={run.error ?? (shownPage && !shownPage.ok ? shownPage.error : null)} />
    </ToolForm>
  )

  let preview
  if (run.fileUrl) {
    preview = (
      <>
        {run.result ? (
          <CompareSlider
            before={{ src: run.fileUrl, alt: 'Original upload', label: 'Original' }}
            after={{ src: run.result.url, alt: 'Enhanced image', label: 'Enhanced' }}
          />
        ) : (
          <UploadPreview src={run.fileUrl} alt="Original upload" />
        )}
        {run.result ? (
          <DownloadBox title="Enhancement ready" href={run.result.url} filename={run.result.filename}>
            {balance !== null && balance !== undefined ? <p>Credits remaining: {balance}</p> : null}
          </DownloadBox>
        ) : null}
      </>
    )
  } else if (pageOk) {
    preview = (
      <>
        <div className="overflow-hidden rounded-xl bg-slate-100">
          <img src={pageOk.resultUrl} alt="Enhanced image" className="mx-auto max-h-[28rem] w-full object-contain" data-testid="result-image" />
        </div>
        <DownloadBox title="Enhancement ready" href={pageOk.downloadUrl} filename={pageOk.filename || tool.downloadName}>
          <p>Credits remaining: {pageOk.remaining}</p>
        </DownloadBox>
      </>
    )
  } else {
    preview = (
      <div data-testid="demo-preview">
        <CompareSlider
          before={{ src: DEMO_IMAGES.before, alt: 'Demo photo before enhancement', label: 'Before' }}
          after={{ src: DEMO_IMAGES.after, alt: 'Demo photo after enhancement', label: 'After' }}
          width={DEMO_IMAGES.width}
          height={DEMO_IMAGES.height}
        />
        <p className="mt-2 text-center text-xs text-slate-500">Demo image. Upload your own to see it enhanced.</p>
      </div>
    )
  }

  return <ToolLayout hero={<ToolHero tool={tool} cost={cost} />} controls={controls} preview={preview} />
}
