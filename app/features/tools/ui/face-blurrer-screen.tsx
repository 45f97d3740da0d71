// The face blurrer: upload, blur intensity, before/after with a live CSS preview, tiles, and the
// 'Image secured' result.
import { useLoaderData } from '@remix-run/react'
import { useRef, useState } from 'react'
import { CorrectLink } from './correct-link'
import type { JobView } from '~/features/jobs/view'
import { BLUR, TOOLS } from '~/catalog/tools'
import type { Viewer } from '~/features/account/viewer'
import { trackEvent } from '~/features/analytics/track'
import { useViewer } from '~/features/layout/root-data'
import { toast } from '~/ui/toast'
import { blurRadiusText, displayBlur, facesDetectedText, normaliseBlur, sourceText } from './blur-wording'
import { BlurOptions, FormatOptions } from './tool-options'
import { filenameFromContentDisposition } from './content-disposition'
import { DownloadBox } from './download-box'
import { resultAddresses, type ResultAddresses, type ToolPageResult } from './page-result'
import { releaseShownResult, shownResult } from './shown-result'
import { remainingFrom, SUCCESS_TOAST_MS, TOOL_MESSAGES } from './tool-messages'
import { useToolRun } from './use-tool-run'
import { useWorkspace } from './use-workspace'
import { ChosenPreview, StageCompare, StageResultImage, ToolWorkspace } from './workspace'

const tool = TOOLS['face-blurrer']
const DONE_TITLE = 'Image secured'
const EXTRA_STAGES = [
  { percent: 55, message: 'Scrubbing metadata & EXIF' },
  { percent: 55, message: 'Finalizing anonymization' },
] as const

export const VISITOR_BLUR_MESSAGE =
  'You can blur images as a visitor. Sign in to sync credits across devices and unlock account history.'

interface Blurred {
  /** Where it shows (its preview), opens in full and downloads. */
  at: ResultAddresses
  faces: number
  blur: number
  /** The server's name for it: its extension follows the file type (decision 173). */
  filename: string
}

export function FaceBlurrerScreen({ cost, viewer, pageResult }: { cost: number; viewer: Viewer | undefined; pageResult?: ToolPageResult }) {
  const initialBlur = normaliseBlur(pageResult?.fieldValues?.blur ?? BLUR.default)
  const [blur, setBlur] = useState(initialBlur)
  // The radius actually sent: the slider may move while the server works.
  const submittedBlur = useRef(blur)
  const run = useToolRun<Blurred>(tool, {
    extraWaiting: EXTRA_STAGES,
    headersOnly: true,
    interpret: async (response, resultUrl) => ({
      at: shownResult(response, resultUrl),
      faces: remainingFrom(response.header('X-Faces-Found')) ?? 0,
      blur: submittedBlur.current,
      filename: filenameFromContentDisposition(response.header('Content-Disposition')) ?? tool.downloadName,
    }),
    release: (result) => releaseShownResult(result.at),
    // No face found is not a success: nothing was blurred (and nothing charged), so no success toast.
    quietSuccess: true,
    onSuccess: (result) => {
      if (result.faces > 0) {
        const success = TOOL_MESSAGES[tool.slug].success
        if (success) toast({ ...success, variant: 'success', durationMs: SUCCESS_TOAST_MS })
      }
      trackEvent('face_blur_processed', { faces: result.faces, blur: result.blur })
    },
    onFailure: (message) => trackEvent('face_blur_failed', { error: message }),
  })
  const ws = useWorkspace(tool, run)
  // The page's result: a post's, or (a run followed from a page opened on its job, no file chosen here) the job's.
  const shownPage = (run.status === 'idle' && !run.error) || (run.status === 'complete' && !run.file) ? pageResult : undefined
  const pageOk = shownPage?.ok ? shownPage : undefined
  // The job a page post (no JavaScript) made, for the way to its review.
  const pageJobId = (useLoaderData() as { job?: JobView | null } | undefined)?.job?.id
  // The page's one balance (root-data.ts), as the header shows it.
  const balance = useViewer()?.credits?.balance ?? run.remaining ?? (shownPage ? shownPage.remaining : null)
  const signedIn = Boolean(viewer?.user)

  const faces = run.result ? run.result.faces : pageOk ? (pageOk.facesFound ?? 0) : null
  const hasSource = Boolean(run.file) || Boolean(pageOk)
  // Without JavaScript the page knows the applied radius only when the server echoes the fields.
  const pageBlurKnown = Boolean(pageOk?.fieldValues?.blur)
  // No face found: no blur was applied, whatever the slider says.
  const radiusState: 'applied' | 'preview' | 'none' =
    faces === 0 ? 'none' : run.result || (pageOk && pageBlurKnown) ? 'applied' : run.file ? 'preview' : 'none'
  const radius = run.result ? run.result.blur : pageOk ? initialBlur : blur

  const options = (
    <>
      <BlurOptions blur={blur} onBlur={setBlur} />
      <FormatOptions chosen={pageResult?.fieldValues?.format} />
    </>
  )

  const tiles = (
    <dl className="grid grid-cols-3 gap-2" data-testid="blur-tiles">
      <Tile label="Source" value={sourceText(hasSource)} />
      <Tile label="Faces detected" value={facesDetectedText(faces)} />
      <Tile label="Blur radius" value={blurRadiusText(radius, radiusState)} />
    </dl>
  )

  // Before a run the after side shows the blur as CSS, on the whole frame (spec).
  const chosenView = !run.file || !run.fileUrl ? null : run.result?.faces === 0 ? (
    <ChosenPreview file={run.file} url={run.fileUrl} size={ws.size} />
  ) : (
    <StageCompare
      size={ws.size}
      before={{ src: run.fileUrl, alt: 'Original upload', label: 'Original upload' }}
      after={
        run.result
          ? { src: run.result.at.preview, alt: 'Blurred output', label: 'Blurred output' }
          : { src: run.fileUrl, alt: 'Blur preview', label: 'Blurred output', style: { filter: `blur(${displayBlur(blur)}px)` } }
      }
      hint={run.result ? undefined : 'Run blur to generate final output'}
      fullSize={run.result?.at.full}
    />
  )

  const resultView = run.result ? (
    <>
      {chosenView}
      <DownloadBox title={DONE_TITLE} href={run.result.at.download} filename={run.result.filename} actions={<CorrectLink jobId={run.jobId} tool={tool.slug} />}>
        <p data-testid="faces-detected">Faces detected: {run.result.faces}</p>
        {balance !== null && balance !== undefined ? <p>Credits remaining: {balance}</p> : null}
      </DownloadBox>
    </>
  ) : null

  const pageResultView = pageOk ? (
    <>
      <StageResultImage at={resultAddresses(pageOk.resultUrl)} alt="Blurred output" />
      <DownloadBox title={DONE_TITLE} href={pageOk.downloadUrl} filename={pageOk.filename} actions={<CorrectLink jobId={pageJobId} tool={tool.slug} />}>
        <p data-testid="faces-detected">Faces detected: {pageOk.facesFound ?? 0}</p>
        <p>Credits remaining: {pageOk.remaining}</p>
      </DownloadBox>
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
      formLabel="Blur faces"
      processLabel="Blur this image"
      busyLabel="Running AI blur…"
      doneTitle={DONE_TITLE}
      onRun={(form) => {
        form.set('blur', String(blur))
        submittedBlur.current = blur
        trackEvent('face_blur_requested', { blur })
        void run.run(form)
      }}
      options={options}
      notes={signedIn ? null : <p className="text-sm text-slate-600">{VISITOR_BLUR_MESSAGE}</p>}
      extra={tiles}
      chosenView={chosenView}
      resultView={resultView}
      pageResultView={pageResultView}
      facesFound={run.result ? run.result.faces : null}
    />
  )
}

function Tile({ label, value }: { label: string; value: string }) {
  return (
    <div className="rounded-xl border border-slate-200 bg-slate-50 p-2">
      <dt className="text-xs font-medium text-slate-600">{label}</dt>
      <dd className="mt-0.5 text-sm font-semibold text-slate-900">{value}</dd>
    </div>
  )
}
