// The face blurrer: upload, blur intensity, before/after with a live CSS preview, tiles, and the
// 'Image secured' result.
import { useRef, useState } from 'react'
import { BLUR, TOOLS } from '~/features/tools/catalog'
import type { Viewer } from '~/features/viewer'
import { trackEvent } from '~/features/analytics/track'
import { CompareSlider } from '~/ui/compare-slider'
import { blurRadiusText, displayBlur, facesDetectedText, normaliseBlur, sourceText } from './blur-wording'
import { DownloadBox } from './download-box'
import { ErrorBox } from './error-box'
import { shownStatus, type ToolPageResult } from './page-result'
import { ProgressPanel } from './progress-panel'
import { remainingFrom } from './tool-messages'
import { StatusBadge } from './status-badge'
import { ToolForm } from './tool-form'
import { ToolHero } from './tool-hero'
import { CreditsLine, EmptyPreview, ProcessButton, ToolLayout } from './tool-layout'
import { UploadCard } from './upload-card'
import { useToolRun } from './use-tool-run'

const tool = TOOLS['face-blurrer']
const EXTRA_STAGES = [
  { percent: 55, message: 'Scrubbing metadata & EXIF' },
  { percent: 55, message: 'Finalizing anonymization' },
] as const

export const VISITOR_BLUR_MESSAGE =
  'You can blur images as a visitor. Sign in to sync credits across devices and unlock account history.'

interface Blurred {
  url: string
  faces: number
  blur: number
}

export function FaceBlurrerScreen({ cost, viewer, pageResult }: { cost: number; viewer: Viewer | undefined; pageResult?: ToolPageResult }) {
  const initialBlur = normaliseBlur(pageResult?.fieldValues?.blur ?? BLUR.default)
  const [blur, setBlur] = useState(initialBlur)
  // The radius actually sent: the slider may move while the server works.
  const submittedBlur = useRef(blur)
  const run = useToolRun<Blurred>(tool, {
    extraWaiting: EXTRA_STAGES,
    interpret: async (response) => ({
      url: URL.createObjectURL(response.body),
      faces: remainingFrom(response.header('X-Faces-Found')) ?? 0,
      blur: submittedBlur.current,
    }),
    release: (result) => URL.revokeObjectURL(result.url),
    onSuccess: (result) => trackEvent('face_blur_processed', { faces: result.faces, blur: result.blur }),
    onFailure: (message) => trackEvent('face_blur_failed', { error: message }),
  })
  const busy = run.status === 'processing'
  const shownPage = run.status === 'idle' && !run.error ? pageResult : undefined
  const pageOk = shownPage?.ok ? shownPage : undefined
  const balance = run.remaining ?? (shownPage ? shownPage.remaining : null) ?? viewer?.credits?.balance
  const signedIn = Boolean(viewer?.user)

  const faces = run.result ? run.result.faces : pageOk ? (pageOk.facesFound ?? 0) : null
  const hasSource = Boolean(run.file) || Boolean(pageOk)
  // Without JavaScript the page knows the applied radius only when the server echoes the fields.
  const pageBlurKnown = Boolean(pageOk?.fieldValues?.blur)
  const radiusState: 'applied' | 'preview' | 'none' =
    run.result || (pageOk && pageBlurKnown) ? 'applied' : run.file ? 'preview' : 'none'
  const radius = run.result ? run.result.blur : pageOk ? initialBlur : blur

  const controls = (
    <ToolForm
      label="Blur faces"
      onRun={(form) => {
        if (run.file) form.set(tool.fileField, run.file)
        form.set('blur', String(blur))
        submittedBlur.current = blur
        trackEvent('face_blur_requested', { blur })
        void run.run(form)
      }}
    >
      <UploadCard
        tool={tool}
        file={run.file}
        onFile={run.selectFile}
        disabled={busy}
        aside={<StatusBadge tool={tool.slug} status={shownStatus(run.status, shownPage)} />}
      />
      <div className="space-y-2">
        <div className="flex items-center justify-between text-sm">
          <label htmlFor="blur-intensity" className="font-semibold text-slate-900">
            Blur intensity
          </label>
          <output htmlFor="blur-intensity" className="tabular-nums text-slate-700" data-testid="blur-value">
            {displayBlur(blur)}px
          </output>
        </div>
        <input
          id="blur-intensity"
          type="range"
          name="blur"
          min={BLUR.min}
          max={BLUR.max}
          step={BLUR.step}
          value={blur}
          onChange={(event) => setBlur(normaliseBlur(event.currentTarget.valueAsNumber))}
          aria-valuetext={`${displayBlur(blur)} pixels`}
          className="w-full accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        />
        <div className="flex justify-between text-xs text-slate-500" aria-hidden="true">
          <span>{BLUR.min}px</span>
          <span>{BLUR.max}px</span>
        </div>
      </div>
      <ProcessButton disabled={!run.file || busy} busy={busy} label="Blur this image" busyLabel="Running AI blur…" />
      <div className="space-y-1 text-sm">
        {signedIn ? null : <p className="text-slate-600">{VISITOR_BLUR_MESSAGE}</p>}
        <CreditsLine balance={balance} />
      </div>
      <ProgressPanel progress={run.progress} failed={run.status === 'error'} />
      <ErrorBox message={run.error ?? (shownPage && !shownPage.ok ? shownPage.error : null)} />
    </ToolForm>
  )

  let compare
  if (run.fileUrl) {
    compare = (
      <CompareSlider
        before={{ src: run.fileUrl, alt: 'Original upload', label: 'Original upload' }}
        after={
          run.result
            ? { src: run.result.url, alt: 'Blurred output', label: 'Blurred output' }
            : { src: run.fileUrl, alt: 'Blur preview', label: 'Blurred output', style: { filter: `blur(${displayBlur(blur)}px)` } }
        }
        hint={run.result ? undefined : 'Run blur to generate final output'}
      />
    )
  } else if (pageOk) {
    compare = (
      <figure className="m-0">
        <div className="overflow-hidden rounded-xl bg-slate-100">
          <img src={pageOk.resultUrl} alt="Blurred output" className="mx-auto max-h-[28rem] w-full object-contain" data-testid="result-image" />
        </div>
        <figcaption className="mt-2 text-center text-xs text-slate-500">Blurred output</figcaption>
      </figure>
    )
  } else {
    compare = <EmptyPreview>Upload a photo to preview the blur on every face.</EmptyPreview>
  }

  const resultBox = run.result ? (
    <DownloadBox title="Image secured" href={run.result.url} filename={tool.downloadName}>
      <p data-testid="faces-detected">Faces detected: {run.result.faces}</p>
      {balance !== null && balance !== undefined ? <p>Credits remaining: {balance}</p> : null}
    </DownloadBox>
  ) : pageOk ? (
    <DownloadBox title="Image secured" href={pageOk.downloadUrl} filename={pageOk.filename}>
      <p data-testid="faces-detected">Faces detected: {pageOk.facesFound ?? 0}</p>
      <p>Credits remaining: {pageOk.remaining}</p>
    </DownloadBox>
  ) : null

  const preview = (
    <>
      {compare}
      <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3" data-testid="blur-tiles">
        <Tile label="Source" value={sourceText(hasSource)} />
        <Tile label="Faces detected" value={facesDetectedText(faces)} />
        <Tile label="Blur radius" value={blurRadiusText(radius, radiusState)} />
      </dl>
      {resultBox}
    </>
  )

  return <ToolLayout hero={<ToolHero tool={tool} cost={cost} />} controls={controls} preview={preview} />
}

function Tile({ label, value }: { label: string; value: string }) {
  return (
    <div className="rounded-xl border border-slate-200 bg-slate-50 p-3">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="mt-1 text-base font-semibold text-slate-900">{value}</dd>
    </div>
  )
}
