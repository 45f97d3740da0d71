// The one workspace of the five tools (issue 13): the image first. A large drop target (drop, click,
// paste) with samples to try; the chosen image, its progress, then the before/after result and its
// download in that same place; the tool's options beside it on wide screens and below on narrow ones.
// Every state has its own panel and words (workspace-state.ts). The form is a real multipart POST, so
// all of it works without JavaScript; the browser run takes it over once hydrated.
import { UploadIcon } from '~/ui/upload-icon'
import { Link, useLoaderData, useRevalidator } from '@remix-run/react'
import { useEffect, useRef, useState, type CSSProperties, type DragEvent, type ReactNode } from 'react'
import type { ProgressStep, ToolDefinition } from '~/catalog/tools'
import { HANDED_BACK_NOTE, TERMINAL_JOB_STATUSES, type JobView } from '~/features/jobs/view'
import { passesCap, OVER_CAP_TITLE } from '~/features/teams/headroom'
import { HeadroomLine, OverCapText, UseOwnCreditsForm } from '~/features/teams/ui/cap-headroom'
import type { Viewer } from '~/features/account/viewer'
import { useRootData, useViewer } from '~/features/layout/root-data'
import { CompareSlider, type CompareImage } from '~/ui/compare-slider'
import { useHydrated } from '~/ui/use-hydrated'
import { browserCanShow, formatMegabytes } from './file-checks'
import { FollowBeforeScripts } from './follow-before-scripts'
import { JOB_REFRESH_SECONDS, reloadsWhileRunning, type ResultAddresses, type ToolPageResult } from './page-result'
import { ProgressPanel } from './progress-panel'
import { fetchSample, SAMPLES } from './samples'
import { StatusBadge } from './status-badge'
import { ToolForm } from './tool-form'
import { ReportWrong } from './report-wrong'
import { ToolHero } from './tool-hero'
import { CreditsLine, ProcessButton, ResultActions } from './tool-layout'
import { takeHandoff } from './handoff'
import { FAILED_STAGE_MESSAGE } from './use-tool-run'
import type { ImageSize, RunLike, useWorkspace } from './use-workspace'
import {
  announcement,
  BUSY_PHASES,
  MODEL_MISSING_TITLE,
  NO_FACE_MESSAGE,
  NOT_CHARGED_AFTER_FAILURE,
  notEnoughCreditsText,
  OUTCOME_PHASES,
  TOO_SLOW_TITLE,
  workspacePhase,
  type CreditAllowances,
  type WorkspacePhase,
} from './workspace-state'
import { formatCredits } from '~/utils/credits-word'

const DEFAULT_ALLOWANCES: CreditAllowances = { guestDaily: 5, userFloor: 10, signupBonus: 50 }

export interface ToolWorkspaceProps {
  tool: ToolDefinition
  cost: number
  viewer: Viewer | undefined
  run: RunLike
  ws: ReturnType<typeof useWorkspace>
  /** The outcome of a form posted without JavaScript, while the browser has not run anything itself. */
  pageResult: ToolPageResult | undefined
  formLabel: string
  processLabel: string
  busyLabel: string
  /** Called with the form's data, the chosen file already in the tool's file field. */
  onRun: (form: FormData) => void
  /** The done heading ('Cutout ready'): announced when a run ends. */
  doneTitle: string
  /** The tool's settings, beside the image. */
  options?: ReactNode
  /** Sentences for visitors or about the engine, under the button. */
  notes?: ReactNode
  /** Shown after the settings (the blurrer's tiles, the enhancer's demo). */
  extra?: ReactNode
  /** Replaces the plain preview of the chosen file (the blurrer's live blur). */
  chosenView?: ReactNode
  /** The browser run's result: before/after and download. */
  resultView?: ReactNode
  /** The result of a page post (no JavaScript). */
  pageResultView?: ReactNode
  /** The face blurrer: faces the finished browser run found. */
  facesFound?: number | null
  /** The run was refused before sending because it needs an account. */
  needsSignIn?: boolean
  signInPath?: string
}

/** The loader data every tool page has: the missing models, and the job a no-JS post follows. */
function useToolPageExtras(): { missingModels: readonly string[]; job: JobView | null } {
  const data = useLoaderData() as { missingModels?: unknown; job?: unknown } | null
  const missingModels = Array.isArray(data?.missingModels) ? (data.missingModels as string[]) : []
  const job = data?.job && typeof data.job === 'object' ? (data.job as JobView) : null
  return { missingModels, job }
}

export function ToolWorkspace(props: ToolWorkspaceProps) {
  const { tool, cost, viewer, run, ws } = props
  const hydrated = useHydrated()
  const root = useRootData()
  const allowances = root?.allowances ?? DEFAULT_ALLOWANCES
  const { missingModels, job } = useToolPageExtras()
  const signedIn = Boolean(viewer?.user)
  // A tool that needs an account says so before a visitor chooses a file (issue 21), not after.
  const signInFirst = tool.signInRequired && !signedIn
  // The job a no-JS post redirected to is followed while it waits or runs; once it ended, the loader's
  // pageResult says what happened (the tool's own result view, its no-face or failure wording).
  const shownJob = run.status === 'idle' && !ws.rejection && job && !TERMINAL_JOB_STATUSES.includes(job.status) ? job : null
  const page = run.status === 'idle' && !ws.rejection && !shownJob ? props.pageResult : undefined
  // One balance on the page (root-data.ts): the header's, which a run's answer updates in the same render.
  const live = useViewer()
  const balance = live?.credits?.balance ?? run.remaining ?? (page ? page.remaining : null) ?? shownJob?.remaining ?? null
  // Working as a team with a monthly cap: what is left of it, and whether this run would pass it.
  const team = viewer?.workingTeam ?? null
  const cap = team?.cap ?? null
  const overCap = passesCap(cap, cost)

  const phase = workspacePhase({
    tool,
    missingModels,
    checking: ws.checking,
    rejection: ws.rejection,
    status: run.status,
    progress: run.progress,
    facesFound: props.facesFound ?? null,
    needsSignIn: Boolean(props.needsSignIn) || signInFirst,
    pageResult: page,
    job: shownJob,
    balance,
    cost,
    overCap,
  })
  const busy = BUSY_PHASES.includes(phase)
  const short = (balance !== null && balance < cost) || overCap
  const error = ws.rejection ?? run.error ?? (page && !page.ok ? page.error : null) ?? shownJob?.error ?? null

  // The live region speaks when a run ends, once per outcome.
  const [spoken, setSpoken] = useState('')
  useEffect(() => {
    if (!OUTCOME_PHASES.includes(phase) || run.status === 'idle' || run.status === 'ready') return
    setSpoken(announcement(phase, { doneTitle: props.doneTitle, error }))
  }, [phase, run.status, error, props.doneTitle])

  // A refused browser run re-reads the page's data: a cap reached meanwhile (another tab, a team key)
  // then shows as the over-cap panel, with its way on, instead of a failure.
  const revalidator = useRevalidator()
  const refusedAsTeam = run.status === 'error' && team !== null
  useEffect(() => {
    if (refusedAsTeam) revalidator.revalidate()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [refusedAsTeam])

  const [dragging, setDragging] = useState(false)
  const locked = busy || phase === 'model-missing' || signInFirst

  // A file handed over by the home page's drop zone is checked like a chosen one, then run at once
  // (what its form does without JavaScript), unless the checks or the balance stop it first.
  const startHandedOff = useRef(false)
  useEffect(() => {
    // A file chosen before the scripts had loaded (a slow link) is taken up as if chosen now: the input
    // still holds it, and without this the run button would wait for a second choice.
    const chosenEarly = ws.inputRef.current?.files?.[0]
    if (chosenEarly && !locked && !run.file) {
      void ws.choose(chosenEarly)
      return
    }
    const file = takeHandoff(tool.slug)
    if (!file || locked) return
    startHandedOff.current = true
    void ws.choose(file)
    // Once, on arrival.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])
  useEffect(() => {
    if (!startHandedOff.current || ws.checking) return
    if (phase === 'chosen') ws.inputRef.current?.form?.requestSubmit()
    if (phase !== 'empty') startHandedOff.current = false
  }, [phase, ws.checking, ws.inputRef])

  // A pasted image (Ctrl/Cmd+V anywhere on the page) is taken like a dropped one.
  useEffect(() => {
    function onPaste(event: ClipboardEvent) {
      const file = event.clipboardData?.files?.[0]
      if (!file || locked) return
      event.preventDefault()
      void ws.choose(file)
    }
    document.addEventListener('paste', onPaste)
    return () => document.removeEventListener('paste', onPaste)
  }, [locked, ws])

  function onDragOver(event: DragEvent<HTMLElement>) {
    event.preventDefault()
    if (!locked) setDragging(true)
  }
  function onDrop(event: DragEvent<HTMLElement>) {
    event.preventDefault()
    setDragging(false)
    const file = event.dataTransfer.files?.[0]
    if (file && !locked) void ws.choose(file)
  }

  const progress: ProgressStep | null = shownJob
    ? { percent: shownJob.progress, message: shownJob.status === 'failed' ? FAILED_STAGE_MESSAGE : (shownJob.stage ?? 'Waiting in the queue') }
    : run.progress

  const hasFile = Boolean(run.file)
  const fileView = hasFile
    ? ws.unreadable
      ? <NoPreview file={run.file!} reason="unreadable" />
      : (props.chosenView ?? <ChosenPreview file={run.file!} url={run.fileUrl} size={ws.size} />)
    : null
  const outcome = (title: string, tone: PanelTone, body: ReactNode) => (
    <StatePanel tone={tone} title={title} focusRef={ws.outcomeRef} testId={`state-${phase}`}>
      {body}
    </StatePanel>
  )

  // The panel of an outcome other than a result: under the image when there is one, else over the drop target.
  const PANELS: Partial<Record<WorkspacePhase, () => ReactNode>> = {
    'no-face': () => outcome('No faces found', 'amber', <p>{NO_FACE_MESSAGE}. Try a photo in which the faces are clearly visible.</p>),
    failed: () => outcome('The run failed', 'red', <FailedText error={error} />),
    'no-credits': () => outcome('Not enough credits', 'amber', <NoCreditsText cost={cost} balance={balance} signedIn={signedIn} allowances={allowances} />),
    'over-cap': () => (team && cap ? outcome(OVER_CAP_TITLE, 'amber', <OverCapText teamName={team.name} cap={cap} cost={cost} error={error} />) : null),
    'sign-in': () => outcome('Sign in to use this tool', 'amber', <SignInText error={error} path={props.signInPath} />),
    'too-slow': () => outcome(TOO_SLOW_TITLE, 'amber', <p data-testid="error-box">{error}</p>),
  }
  const panel = PANELS[phase]?.() ?? null

  const fileBar = hasFile ? <FileBar tool={tool} file={run.file!} status={run.status} inputId={inputId(tool)} locked={locked} /> : null

  let stage: ReactNode
  if (phase === 'model-missing') {
    stage = outcome(MODEL_MISSING_TITLE, 'amber', <ModelMissingText models={missingModels} />)
  } else if (phase === 'done') {
    stage = (
      <>
      {fileBar}
      <div ref={ws.outcomeRef as React.RefObject<HTMLDivElement>} tabIndex={-1} className="space-y-3 rounded-xl outline-none" aria-label={props.doneTitle} data-testid="state-done">
        {/* A run followed from a page opened on its job (a reload, a link, a run tapped before the scripts came)
            has no file chosen in this browser to show beside it: the page's own result view, from the loader's
            data revalidated at the run's end, shows it. */}
        {run.status === 'complete' && run.file ? props.resultView : props.pageResultView}
      </div>
      </>
    )
  } else if (hasFile || phase === 'uploading' || phase === 'processing' || (phase === 'failed' && run.status === 'error')) {
    stage = (
      <>
        {fileBar}
        {shownJob && busy ? (
          <p className="rounded-xl bg-slate-50 p-4 text-sm text-slate-800" data-testid="job-waiting">
            {shownJob.handedBack ? (
              <>
                {HANDED_BACK_NOTE}{' '}
                <a href={`?job=${shownJob.id}`} className="font-semibold text-indigo-700 underline underline-offset-2">
                  your run
                </a>
                .{' '}
              </>
            ) : null}
            Your image is being processed. This page refreshes itself until the result is ready.
          </p>
        ) : null}
        {/* While the run works only the pictures dim: the captions keep their contrast. */}
        <div className={busy ? '[&_img]:opacity-60' : undefined}>{fileView}</div>
        {panel}
      </>
    )
  } else {
    stage = (
      <>
        {panel}
        {phase === 'no-credits' || phase === 'sign-in' ? null : (
          <DropTarget tool={tool} phase={phase} message={phase === 'rejected' ? error : null} dragging={dragging} hydrated={hydrated} processLabel={props.processLabel} />
        )}
        {ws.offer ? <DownscaleButton offer={ws.offer} busy={ws.downscaling} onClick={() => void ws.downscale()} /> : null}
        {hydrated && phase !== 'no-credits' && phase !== 'sign-in' ? <Samples tool={tool} onPick={(file) => void ws.choose(file)} disabled={locked} /> : null}
      </>
    )
  }

  // Not after a blur that found no face: its last stage ('Anonymization sealed') would not be true.
  const showProgress = progress && (busy || phase === 'done' || phase === 'failed')

  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-4 sm:px-6 sm:py-6">
      <ToolHero tool={tool} />
      {/* Without JavaScript the page reloads itself while the job it was opened on runs; with it, use-tool-run
          follows the job, and until the scripts have come, a few lines in the page do (FollowBeforeScripts). */}
      {reloadsWhileRunning(job) ? (
        <>
          <noscript>
            <meta httpEquiv="refresh" content={String(JOB_REFRESH_SECONDS)} />
          </noscript>
          <FollowBeforeScripts jobId={job!.id} />
        </>
      ) : null}
      <ToolForm
        label={props.formLabel}
        onRun={(form) => {
          // The chosen file (dropped, pasted or a sample) may not be the form's input's: send the run's.
          if (run.file) form.set(tool.fileField, run.file)
          props.onRun(form)
        }}
      >
        <div className="mt-4 grid gap-4 lg:grid-cols-[minmax(0,7fr)_minmax(0,4fr)] lg:items-start">
          <section
            ref={ws.stageRef as React.RefObject<HTMLElement>}
            aria-label="Image"
            onDragOver={onDragOver}
            onDragLeave={() => setDragging(false)}
            onDrop={onDrop}
            className={`workspace-stage min-w-0 scroll-mt-20 space-y-3 rounded-2xl border bg-white p-3 shadow-sm sm:p-4 ${dragging ? 'border-indigo-500 ring-2 ring-indigo-200' : 'border-slate-200'}`}
            data-testid="stage"
            data-phase={phase}
          >
            <input
              ref={ws.inputRef}
              id={inputId(tool)}
              type="file"
              name={tool.fileField}
              accept={tool.accept}
              // Without JavaScript the browser itself refuses a post with no file; with it, the button does.
              required={!hydrated}
              disabled={locked || phase === 'no-credits'}
              // Its own name: the drop target (its visible label) is not shown in every state.
              aria-label={tool.fileField === 'svg' ? 'Choose an SVG file' : 'Choose an image'}
              aria-describedby={phase === 'no-credits' || phase === 'model-missing' || phase === 'sign-in' ? undefined : `${inputId(tool)}-hint`}
              onChange={(event) => void ws.choose(event.currentTarget.files?.[0] ?? null)}
              className="peer sr-only"
              data-testid="file-input"
            />
            {stage}
            {showProgress ? (
              <ProgressPanel
                progress={progress}
                failed={phase === 'failed'}
                timing={busy && ws.clock ? { clock: ws.clock, renderedAt: ws.renderedAt ?? ws.clock.startedAt, signedIn, steps: tool.steps } : null}
              />
            ) : null}
          </section>
          <section aria-label="Settings" className="min-w-0 space-y-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm">
            {props.options}
            {/* The run button and its cost: on phones, pinned to the bottom of the screen once a file is
                chosen (issue 21), by this state with JavaScript and by CSS (:has a chosen file) without. */}
            <div className="action-bar space-y-2" data-pinned={hydrated && hasFile ? 'true' : undefined} data-testid="action-bar">
              <p className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 text-sm">
                <span className="font-semibold text-slate-900" data-testid="tool-cost">
                  {formatCredits(cost)} per run
                </span>
                <CreditsLine balance={balance} />
              </p>
              {team && cap ? <HeadroomLine teamName={team.name} cap={cap} /> : null}
              {phase === 'done' ? (
                <ResultActions
                  hydrated={hydrated}
                  pageDownload={page?.ok ? { href: page.downloadUrl, filename: page.filename } : null}
                  toolPath={tool.path}
                  outcomeRef={ws.outcomeRef}
                  inputRef={ws.inputRef}
                />
              ) : null}
              {/* After a result the phone's bar offers the result instead (ResultActions); wider screens keep it. */}
              <div className={phase === 'done' ? 'hidden lg:block' : undefined}>
                <ProcessButton
                  disabled={!hasFile || busy || short}
                  blocked={phase === 'model-missing' || signInFirst || (short && !hasFile && !hydrated)}
                  busy={busy && phase !== 'checking'}
                  label={props.processLabel}
                  busyLabel={props.busyLabel}
                />
              </div>
              {tool.signInRequired && !signedIn ? <p className="text-xs font-medium text-amber-900">Requires a Facet Studio account</p> : null}
            </div>
            {props.notes}
            {props.extra}
          </section>
        </div>
      </ToolForm>
      {phase === 'over-cap' ? <UseOwnCreditsForm /> : null}
      {/* Its own form, so outside the tool's (forms do not nest): under the result it is about. */}
      {phase === 'done' ? <ReportWrong jobId={run.status === 'complete' ? run.jobId : job?.id} boxed /> : null}
      <p role="status" aria-live="polite" className="sr-only" data-testid="announcer">
        {spoken}
      </p>
    </div>
  )
}

const inputId = (tool: ToolDefinition) => `file-${tool.slug}`

function DropTarget({
  tool,
  phase,
  message,
  dragging,
  hydrated,
  processLabel,
}: {
  tool: ToolDefinition
  phase: WorkspacePhase
  message: string | null
  dragging: boolean
  hydrated: boolean
  processLabel: string
}) {
  const noun = tool.fileField === 'svg' ? 'an SVG file' : 'an image'
  return (
    <label
      htmlFor={inputId(tool)}
      className={`flex min-h-64 cursor-pointer flex-col items-center justify-center gap-2 rounded-xl border-2 border-dashed px-4 py-8 text-center transition-colors peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-indigo-600 peer-disabled:cursor-not-allowed sm:min-h-80 ${
        dragging ? 'border-indigo-500 bg-indigo-50' : 'border-indigo-200 bg-indigo-50/40 hover:border-indigo-400 hover:bg-indigo-50'
      }`}
      data-testid="drop-zone"
    >
      <UploadIcon />
      <span className="text-lg font-semibold text-slate-900">
        {hydrated ? `Drop ${noun} here, or click to choose` : `Click to choose ${noun}`}
      </span>
      <span id={`${inputId(tool)}-hint`} className="text-sm text-slate-600">
        {tool.acceptedLabel} up to {tool.maxMegabytes}MB{hydrated ? ' · or paste with Ctrl+V / ⌘V' : ''}
      </span>
      {phase === 'checking' ? (
        <span role="status" className="text-sm font-medium text-indigo-800" data-testid="checking">
          Checking the file…
        </span>
      ) : null}
      {message ? (
        <span role="alert" className="mt-1 max-w-md rounded-lg bg-red-50 px-3 py-2 text-sm font-medium text-red-800" data-testid="error-box">
          {message}
        </span>
      ) : null}
      {hydrated ? null : (
        // The browser shows no file name once its own control is hidden: this line appears when one is chosen.
        <span className="hidden rounded-lg bg-emerald-50 px-3 py-2 text-sm font-medium text-emerald-900 [.peer:valid~*_&]:block" data-testid="chosen-no-js">
          File chosen. Press “{processLabel}”.
        </span>
      )}
    </label>
  )
}

/** The way on for an image too large to finish in time: downscaled here, then chosen (nothing was uploaded). */
function DownscaleButton({ offer, busy, onClick }: { offer: NonNullable<ReturnType<typeof useWorkspace>['offer']>; busy: boolean; onClick: () => void }) {
  return (
    <p className="flex flex-wrap items-center gap-2 text-sm">
      <button
        type="button"
        onClick={onClick}
        disabled={busy}
        className="inline-flex min-h-11 items-center rounded-lg bg-indigo-600 px-4 font-semibold text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-700 disabled:opacity-60"
        data-testid="downscale"
      >
        {busy ? 'Downscaling…' : `Downscale to ${offer.width} × ${offer.height}`}
      </button>
      <span className="text-slate-700">Done in your browser; nothing has been uploaded yet.</span>
    </p>
  )
}

function Samples({ tool, onPick, disabled }: { tool: ToolDefinition; onPick: (file: File) => void; disabled: boolean }) {
  const [failed, setFailed] = useState<string | null>(null)
  const samples = SAMPLES[tool.slug]
  if (samples.length === 0) return null
  return (
    <div className="flex flex-wrap items-center gap-3 text-sm" data-testid="samples">
      <span className="text-slate-700">No image at hand? Try a sample (a real run, charged like any upload):</span>
      <ul className="flex gap-2">
        {samples.map((sample) => (
          <li key={sample.src}>
            <button
              type="button"
              disabled={disabled}
              onClick={async () => {
                setFailed(null)
                try {
                  onPick(await fetchSample(sample))
                } catch (error) {
                  setFailed((error as Error).message)
                }
              }}
              className="block overflow-hidden rounded-lg border border-slate-300 bg-slate-50 hover:border-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-50"
              aria-label={`Try the sample: ${sample.alt}`}
              data-testid="sample"
            >
              <img src={sample.src} alt="" width={56} height={56} loading="lazy" decoding="async" className="h-14 w-14 object-cover" />
            </button>
          </li>
        ))}
      </ul>
      {failed ? (
        <p role="alert" className="w-full text-red-800">
          {failed}
        </p>
      ) : null}
    </div>
  )
}

function FileBar({ tool, file, status, inputId: id, locked }: { tool: ToolDefinition; file: File; status: RunLike['status']; inputId: string; locked: boolean }) {
  return (
    <div className="flex items-center gap-3 rounded-xl bg-slate-50 px-3 py-2 text-sm">
      <div className="min-w-0 flex-1" role="group" aria-label="Chosen file" data-testid="file-summary">
        <p className="truncate font-medium text-slate-900" title={file.name}>
          {file.name}
        </p>
        <p className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-600">
          <span>{formatMegabytes(file.size)}</span>
          <span>{file.type || 'unknown type'}</span>
          <StatusBadge tool={tool.slug} status={status} />
        </p>
      </div>
      <label
        htmlFor={id}
        className={`inline-flex min-h-10 shrink-0 items-center rounded-lg border border-slate-300 bg-white px-3 text-sm font-medium text-slate-800 ${
          locked ? 'cursor-not-allowed opacity-50' : 'cursor-pointer hover:bg-slate-100'
        } [.peer:focus-visible~*_&]:outline-2 [.peer:focus-visible~*_&]:outline-offset-2 [.peer:focus-visible~*_&]:outline-indigo-600`}
        data-testid="choose-another"
      >
        Change<span className="sr-only"> image</span>
      </label>
    </div>
  )
}

/** The chosen file before a run: the image itself, or for TIFF a placeholder the browser can draw. */
export function ChosenPreview({ file, url, size }: { file: File; url: string | null; size: ImageSize | null }) {
  if (!url || !browserCanShow(file.type)) return <NoPreview file={file} />
  return (
    <figure className="m-0">
      <div className="flex justify-center overflow-hidden rounded-xl bg-slate-100">
        <img
          src={url}
          alt="Original upload"
          width={size?.width}
          height={size?.height}
          className="block h-auto max-w-full object-contain"
          style={{ maxHeight: 'var(--stage-max)' }}
          data-testid="upload-preview"
        />
      </div>
      <figcaption className="mt-1 text-center text-xs text-slate-600">Original upload</figcaption>
    </figure>
  )
}

const NO_PREVIEW_WORDS = {
  tiff: { title: 'TIFF image · no preview', text: 'Browsers cannot show TIFF files. The file is ready to run; the result will show here.' },
  unreadable: {
    title: 'No preview',
    text: 'The browser could not draw this image: it may be damaged. You can still run it; the server checks it and charges nothing if it cannot be read.',
  },
}

function NoPreview({ file, reason = 'tiff' }: { file: File; reason?: keyof typeof NO_PREVIEW_WORDS }) {
  const words = NO_PREVIEW_WORDS[reason]
  return (
    <div
      role="img"
      aria-label={`${file.name}: ${words.title}`}
      className="flex min-h-48 flex-col items-center justify-center gap-1 rounded-xl border border-slate-200 bg-slate-100 p-6 text-center"
      data-testid="no-preview"
    >
      <span className="text-base font-semibold text-slate-800">{words.title}</span>
      <span className="text-sm text-slate-600">{words.text}</span>
    </div>
  )
}

/** The before/after comparison, shaped like the image and no taller than the stage allows. */
export function StageCompare({
  size,
  before,
  after,
  hint,
  fullSize,
}: {
  size: ImageSize | null
  before: CompareImage | null
  after: CompareImage & { style?: CSSProperties }
  hint?: string
  /** The result at full resolution, when `after` shows its preview: opened only on demand. */
  fullSize?: string
}) {
  const width = size?.width ?? 800
  const height = size?.height ?? 600
  const fit: CSSProperties = { maxWidth: `calc(var(--stage-max) * ${(width / height).toFixed(4)})` }
  if (!before) {
    // A TIFF original cannot be drawn: the result alone, said so.
    return (
      <figure className="m-0">
        <StageResultImage src={after.src} full={fullSize} alt={after.alt} checkerboard />
        <figcaption className="mt-1 text-center text-xs text-slate-600">{after.label} · the TIFF original cannot be shown beside it</figcaption>
      </figure>
    )
  }
  return (
    <div className="mx-auto" style={fit}>
      <CompareSlider before={before} after={after} width={width} height={height} hint={hint} loading="eager" />
      {fullSize ? <FullSizeLink href={fullSize} /> : null}
    </div>
  )
}

/** The result at full resolution, in a tab of its own (the stage shows a preview: decision 179). */
function FullSizeLink({ href }: { href: string }) {
  return (
    <p className="mt-1 text-center text-xs">
      <a href={href} target="_blank" rel="noopener" className="font-medium text-indigo-700 underline underline-offset-2" data-testid="full-size-link">
        View full size
      </a>
    </p>
  )
}

/**
 * A page result's image (no JavaScript), shaped to the stage: its preview, with the full resolution a
 * link away (`at`), or one image as it is (`src`). Fetched first: on a slow link the page's scripts
 * would otherwise go ahead of it.
 */
export function StageResultImage({
  at,
  src,
  full,
  alt,
  checkerboard,
}: { alt: string; checkerboard?: boolean } & ({ at: ResultAddresses; src?: never; full?: never } | { at?: never; src: string; full?: string })) {
  const shown = at ? at.preview : src
  const fullSize = at ? at.full : full
  return (
    <div>
      <div className={`flex justify-center overflow-hidden rounded-xl ${checkerboard ? 'checkerboard' : 'bg-slate-100'}`}>
        <img
          src={shown}
          alt={alt}
          className="block h-auto max-w-full object-contain"
          style={{ maxHeight: 'var(--stage-max)' }}
          data-testid="result-image"
          // React 18 knows no fetchPriority prop; the lowercase attribute passes through as it is.
          {...{ fetchpriority: 'high' }}
        />
      </div>
      {fullSize ? <FullSizeLink href={fullSize} /> : null}
    </div>
  )
}

type PanelTone = 'amber' | 'red'
const PANEL_TONES: Record<PanelTone, string> = {
  amber: 'border-amber-300 bg-amber-50 text-amber-950',
  red: 'border-red-200 bg-red-50 text-red-900',
}

function StatePanel({
  tone,
  title,
  children,
  focusRef,
  testId,
}: {
  tone: PanelTone
  title: string
  children: ReactNode
  focusRef: React.RefObject<HTMLElement | null>
  testId: string
}) {
  return (
    <section
      ref={focusRef as React.RefObject<HTMLElement>}
      tabIndex={-1}
      aria-label={title}
      className={`space-y-2 rounded-xl border p-4 text-sm outline-none focus-visible:ring-2 focus-visible:ring-indigo-600 ${PANEL_TONES[tone]}`}
      data-testid={testId}
    >
      <h2 className="text-base font-semibold">{title}</h2>
      {children}
    </section>
  )
}

function FailedText({ error }: { error: string | null }) {
  return (
    <>
      <p className="font-medium" data-testid="error-box">
        {error ?? 'The run failed.'}
      </p>
      <p>{NOT_CHARGED_AFTER_FAILURE} Try again, or choose another image.</p>
    </>
  )
}

function NoCreditsText({ cost, balance, signedIn, allowances }: { cost: number; balance: number | null; signedIn: boolean; allowances: CreditAllowances }) {
  const text = notEnoughCreditsText({ cost, balance, signedIn, allowances })
  return (
    <>
      {text.lines.map((line) => (
        <p key={line}>{line}</p>
      ))}
      <p className="flex flex-wrap gap-2 pt-1">
        {text.signUp ? (
          <Link
            to="/login?mode=register"
            className="inline-flex min-h-11 items-center rounded-lg bg-indigo-600 px-4 font-semibold text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-700"
            data-testid="sign-up-cta"
          >
            {text.signUp}
          </Link>
        ) : null}
        <Link
          to="/credits"
          className="inline-flex min-h-11 items-center rounded-lg border border-amber-400 bg-white px-4 font-semibold text-amber-950 hover:bg-amber-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-700"
        >
          See your credits
        </Link>
      </p>
    </>
  )
}

function SignInText({ error, path }: { error: string | null; path: string | undefined }) {
  return (
    <>
      {error ? <p data-testid="error-box">{error}</p> : <p>This tool needs a free Facet Studio account. After signing in you come back here to choose your file.</p>}
      {path ? (
        <p>
          <Link to={path} className="font-semibold underline underline-offset-2">
            Sign in to convert SVG files
          </Link>
        </p>
      ) : null}
    </>
  )
}

function ModelMissingText({ models }: { models: readonly string[] }) {
  return (
    <p data-testid="missing-models">
      Runs would fail until the operator installs the model{models.length > 1 ? 's' : ''} {models.join(', ')} with{' '}
      <code className="font-mono">npm run models</code>. Nothing can be charged meanwhile.
    </p>
  )
}
