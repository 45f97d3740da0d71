// The batch screen (/tools/batch): the tool first (a link per tool, so the form carries that tool's
// own option controls under the API's field names), then many files and the options in the
// workspace's layout, then the batch's status. Without JavaScript it is a plain multiple-file form
// posted to the page, then a status page that refreshes itself. With JavaScript the files are
// dropped, pasted or chosen, listed and checked before sending, uploaded with progress to
// POST /api/batches/, and the batch is followed in the background; the address names the batch.
// Working as a team with a monthly cap, the cap's headroom is shown under the cost, and a batch that
// would pass it is the tool pages' over-cap panel (teams/ui/cap-headroom.tsx) before it is sent:
// with JavaScript from the files listed, without it from the server's refusal of the post.
import { UploadIcon } from '~/ui/upload-icon'
import { Form, Link, useLocation, useNavigate, useRevalidator } from '@remix-run/react'
import { useCallback, useEffect, useRef, useState, type DragEvent, type FormEvent } from 'react'
import { BLUR, DENOISE, TOOL_LIST, TOOLS, type ToolDefinition, type ToolSlug } from '~/catalog/tools'
import { formatMegabytes } from '~/features/tools/ui/file-checks'
import { ProgressPanel } from '~/features/tools/ui/progress-panel'
import { readJson, RequestFailedError, sendToolRequest } from '~/features/tools/ui/send-tool-request'
import { CreditsLine, ProcessButton } from '~/features/tools/ui/tool-layout'
import { BackgroundOptions, BlurOptions, DenoiseOptions, FormatOptions, ModelOptions, SvgOptions, useBackgroundChoice, useSvgChoices } from '~/features/tools/ui/tool-options'
import { CutoutOutputOptions } from '~/features/tools/ui/cutout-options'
import { MODEL_MISSING_TITLE } from '~/features/tools/ui/workspace-state'
import type { Viewer } from '~/features/account/viewer'
import { OVER_CAP_TITLE, passesCap, type OverCapSubject } from '~/features/teams/headroom'
import { HeadroomLine, OverCapText, UseOwnCreditsForm } from '~/features/teams/ui/cap-headroom'
import { useHydrated } from '~/ui/use-hydrated'
import { batchProblem, checkBatchFile, totalsOf, type ChosenFile } from './batch-files'
import { BatchStatus, type BatchStatusView } from './batch-status'
import { useBatchStatus } from './use-batch-status'
import { formatCredits } from '~/utils/credits-word'

export type { BatchStatusView } from './batch-status'

export interface BatchScreenProps {
  tool: ToolSlug
  cost: number
  limits: { maxFiles: number; maxMegabytes: number }
  missingModels: readonly string[]
  batch: BatchStatusView | null
  notFound: boolean
  viewer: Viewer | undefined
  /** The refusal of a form posted without JavaScript. */
  error: string | undefined
  /** That refusal was the member's monthly cap: what the batch would have cost. */
  overCapCost?: number | undefined
}

const BATCH_API = '/api/batches/'
const UPLOAD_MESSAGE = 'Uploading files'
export const SEND_FAILED_MESSAGE = 'The files could not be sent. Check the connection and try again.'
/** A ?batch= this caller cannot see: also what a member removed from a team sees of the team's batch. */
export const BATCH_NOT_HERE =
  'No such batch here: it does not exist, it was started in another browser or account, or it belongs to a team you are not working as (or no longer belong to).'

export function BatchScreen(props: BatchScreenProps) {
  const tool = TOOLS[props.tool]
  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-4 sm:px-6 sm:py-6">
      <header className="flex flex-col gap-1 sm:flex-row sm:items-baseline sm:gap-4">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">Batch</h1>
        <p className="text-sm text-slate-600 sm:text-base">Many files through one tool: each file is charged when it runs and refunded if it fails.</p>
      </header>
      {props.batch ? (
        <FollowedBatch key={props.batch.id} batch={props.batch} />
      ) : (
        <>
          <ToolPicker current={tool.slug} />
          {props.notFound ? (
            <p role="alert" className="mt-4 rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-900">
              {BATCH_NOT_HERE}
            </p>
          ) : null}
          <BatchForm {...props} toolDefinition={tool} />
          <OwnCreditsForm viewer={props.viewer} />
        </>
      )}
    </div>
  )
}

function FollowedBatch({ batch: initial }: { batch: BatchStatusView }) {
  const batch = useBatchStatus(initial) ?? initial
  // Opened by this browser's own send (not a reload): the status takes focus from the form.
  const sent = (useLocation().state as { sent?: string } | null)?.sent
  const [justSent] = useState(() => sent === initial.id)
  return (
    <>
      <BatchStatus batch={batch} focusOnMount={justSent} />
      {/* Without JavaScript the page reloads itself while the batch runs (with it, the batch is polled). */}
      {batch.status === 'running' ? (
        <noscript>
          <meta httpEquiv="refresh" content="1" />
        </noscript>
      ) : null}
    </>
  )
}

/** Step one: the tool. A link each, so the choice needs no JavaScript and the address keeps it. */
function ToolPicker({ current }: { current: ToolSlug }) {
  return (
    <nav aria-label="Tool" className="mt-4">
      <h2 className="sr-only">Choose the tool</h2>
      <ul className="flex flex-wrap gap-2">
        {TOOL_LIST.map((t) => (
          <li key={t.slug}>
            <Link
              to={`/tools/batch?tool=${t.slug}`}
              replace
              preventScrollReset
              aria-current={t.slug === current ? 'page' : undefined}
              className={`inline-flex min-h-11 items-center rounded-full border px-4 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${
                t.slug === current ? 'border-indigo-600 bg-indigo-600 text-white' : 'border-slate-300 bg-white text-slate-800 hover:border-indigo-400 hover:bg-indigo-50'
              }`}
            >
              {t.name}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  )
}

type Sending = { fraction: number } | null

function BatchForm(props: BatchScreenProps & { toolDefinition: ToolDefinition }) {
  const { toolDefinition: tool, cost, limits, viewer } = props
  const hydrated = useHydrated()
  const navigate = useNavigate()
  const [files, setFiles] = useState<ChosenFile[]>([])
  const [dragging, setDragging] = useState(false)
  const [sending, setSending] = useState<Sending>(null)
  const [sendError, setSendError] = useState<string | null>(null)
  // The server's refusal of these very files for passing the cap, with their cost (for a zip the page
  // could not count, the server's count); choosing or removing a file forgets it.
  const [capRefusal, setCapRefusal] = useState<{ files: ChosenFile[]; cost: number } | null>(null)
  const inputRef = useRef<HTMLInputElement>(null)
  const nextKey = useRef(0)
  const signedIn = Boolean(viewer?.user)
  const balance = viewer?.credits?.balance ?? null
  const needsSignIn = tool.signInRequired && !signedIn
  const modelMissing = props.missingModels.length > 0
  const totals = totalsOf(files)
  const problem = batchProblem(totals, limits, cost, balance)
  const checking = files.some((f) => f.state === 'checking')
  const busy = sending !== null
  // Working as a team with a monthly cap: the batch's cost against what is left of it. The files
  // listed, or the zip's as counted here, price it; a zip not counted here, once the server has
  // refused it over the cap, its cost as the server counted it (before that, each file's); before any
  // file is chosen, the refused post's cost (no JavaScript), else one file's (when even that passes,
  // every batch does).
  const team = viewer?.workingTeam ?? null
  const cap = team?.cap ?? null
  const refusedOverCap = files.length === 0 && props.overCapCost !== undefined
  const refusedCost = capRefusal?.files === files ? capRefusal.cost : undefined
  const [capCost, capSubject]: [number, OverCapSubject] =
    totals.count !== null && totals.count > 0
      ? [totals.count * cost, 'batch']
      : refusedCost !== undefined
        ? [refusedCost, 'batch']
        : refusedOverCap
          ? [props.overCapCost!, 'batch']
          : [cost, 'file']
  const overCap = passesCap(cap, capCost)
  // Every batch passes the cap: known to the server too, so the button is off even without JavaScript.
  const everyBatchOverCap = passesCap(cap, cost)
  // The over-cap panel says what a refusal's message said, with its way on.
  const error =
    refusedCost !== undefined && overCap ? null : (sendError ?? (files.length === 0 && !(refusedOverCap && overCap) ? (props.error ?? null) : null))

  /** Checks each file for the tool, as the workspace does, and lists it with its verdict. */
  const checkedFor = useRef(tool.slug)
  const check = useCallback(
    async (entries: Array<{ key: string; file: File }>) => {
      for (const entry of entries) {
        const verdict = await checkBatchFile(tool, entry.file, limits)
        // The tool changed meanwhile: its own check of this file wins.
        if (checkedFor.current !== tool.slug) return
        setFiles((list) =>
          list.map((f) =>
            f.key !== entry.key
              ? f
              : verdict.ok
                ? { key: f.key, file: verdict.file, state: 'ready', zip: verdict.zip, runs: verdict.runs }
                : { key: f.key, file: f.file, state: 'refused', message: verdict.message },
          ),
        )
      }
    },
    [tool, limits],
  )

  const add = useCallback(
    (picked: FileList | File[] | null | undefined) => {
      if (!picked || picked.length === 0 || busy) return
      setSendError(null)
      const entries = [...picked].map((file) => ({ key: `f${nextKey.current++}`, file }))
      setFiles((list) => [...list, ...entries.map((e) => ({ ...e, state: 'checking' as const }))])
      void check(entries)
    },
    [busy, check],
  )

  // Another tool: the listed files are checked again for it (an SVG fits the converter only).
  useEffect(() => {
    if (checkedFor.current === tool.slug) return
    checkedFor.current = tool.slug
    const entries = files.map((f) => ({ key: f.key, file: f.file }))
    setFiles(entries.map((e) => ({ ...e, state: 'checking' as const })))
    void check(entries)
    // Only when the tool changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tool.slug])

  // Files chosen before the page was hydrated (the plain form's input) join the list.
  useEffect(() => {
    const input = inputRef.current
    if (!hydrated || !input?.files?.length) return
    add(input.files)
    input.value = ''
    // Once, when the page is hydrated.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [hydrated])

  // A pasted image (Ctrl/Cmd+V anywhere on the page) is added like a dropped one.
  useEffect(() => {
    function onPaste(event: ClipboardEvent) {
      const pasted = event.clipboardData?.files
      if (!pasted || pasted.length === 0) return
      event.preventDefault()
      add(pasted)
    }
    document.addEventListener('paste', onPaste)
    return () => document.removeEventListener('paste', onPaste)
  }, [add])

  function onDragOver(event: DragEvent<HTMLElement>) {
    event.preventDefault()
    if (!busy) setDragging(true)
  }
  function onDrop(event: DragEvent<HTMLElement>) {
    event.preventDefault()
    setDragging(false)
    add(event.dataTransfer.files)
  }

  // A batch refused while working as a team re-reads the page's data: a cap reached meanwhile (another
  // tab, a team key) then shows as the over-cap panel, with its way on.
  const revalidator = useRevalidator()

  async function submit(event: FormEvent<HTMLFormElement>) {
    if (!hydrated) return
    event.preventDefault()
    if (busy || checking || problem || overCap || totals.chosen === 0 || needsSignIn || modelMissing) return
    const form = new FormData(event.currentTarget)
    form.delete(tool.fileField)
    for (const f of files) if (f.state === 'ready') form.append(tool.fileField, f.file, f.file.name)
    setSendError(null)
    setSending({ fraction: 0 })
    try {
      const response = await sendToolRequest(BATCH_API, form, { onUploadProgress: (fraction) => setSending({ fraction }) })
      const body = (await readJson(response)) as { id?: string; error?: string; cost?: unknown } | null
      if (!response.ok || !body?.id) {
        setSending(null)
        setSendError(body?.error ?? SEND_FAILED_MESSAGE)
        if (response.status === 402 && team) {
          if (typeof body?.cost === 'number') setCapRefusal({ files, cost: body.cost })
          revalidator.revalidate()
        }
        return
      }
      // The address names the batch: a reload, or a later visit, finds it where it is.
      navigate(`/tools/batch?batch=${body.id}`, { state: { sent: body.id } })
    } catch (thrown) {
      setSending(null)
      // A network failure or an abort: nothing was accepted, so nothing runs or is charged.
      if (!(thrown instanceof RequestFailedError)) throw thrown
      setSendError(SEND_FAILED_MESSAGE)
    }
  }

  const inputId = 'batch-files'
  const noun = tool.fileField === 'svg' ? 'SVG files' : 'images'
  const blocked = needsSignIn || modelMissing
  const fileInput = (
    <input
      ref={inputRef}
      id={inputId}
      type="file"
      multiple
      name={tool.fileField}
      accept={`${tool.accept},.zip,application/zip`}
      required={!hydrated}
      disabled={busy || blocked}
      aria-label={`Choose ${noun}`}
      aria-describedby={`${inputId}-hint`}
      onChange={(event) => {
        add(event.currentTarget.files)
        // Cleared, so the same files can be chosen again after a removal; the list holds them.
        event.currentTarget.value = ''
      }}
      // Without JavaScript the browser's own control is the form (it lists what was chosen).
      className={hydrated ? 'sr-only' : 'mt-2 block w-full max-w-md rounded-xl border border-slate-300 bg-white p-2 text-sm text-slate-800'}
      data-testid="batch-file-input"
    />
  )

  return (
    <Form method="post" encType="multipart/form-data" onSubmit={submit} aria-label="Batch" data-enhanced={hydrated ? 'true' : 'false'}>
      <input type="hidden" name="tool" value={tool.slug} />
      <div className="mt-4 grid gap-4 lg:grid-cols-[minmax(0,7fr)_minmax(0,4fr)] lg:items-start">
        <section
          aria-label="Files"
          onDragOver={onDragOver}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          className={`min-w-0 space-y-3 rounded-2xl border bg-white p-3 shadow-sm sm:p-4 ${dragging ? 'border-indigo-500 ring-2 ring-indigo-200' : 'border-slate-200'}`}
          data-testid="batch-stage"
        >
          {error ? (
            <p role="alert" className="rounded-xl border border-red-200 bg-red-50 p-3 text-sm font-medium text-red-900" data-testid="batch-error">
              {error}
            </p>
          ) : null}
          {modelMissing ? (
            <section aria-label={MODEL_MISSING_TITLE} className="space-y-2 rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950">
              <h2 className="text-base font-semibold">{MODEL_MISSING_TITLE}</h2>
              <p>
                Runs would fail until the operator installs {props.missingModels.join(', ')} with <code className="font-mono">npm run models</code>. Nothing can be
                charged meanwhile.
              </p>
            </section>
          ) : null}
          <label
            htmlFor={inputId}
            className={`flex cursor-pointer flex-col items-center justify-center gap-2 rounded-xl border-2 border-dashed px-4 py-8 text-center transition-colors ${
              files.length > 0 ? 'min-h-32' : 'min-h-56 sm:min-h-64'
            } ${dragging ? 'border-indigo-500 bg-indigo-50' : 'border-indigo-200 bg-indigo-50/40 hover:border-indigo-400 hover:bg-indigo-50'} ${
              hydrated ? 'has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-indigo-600' : ''
            }`}
            data-testid="batch-drop-zone"
          >
            <UploadIcon />
            <span className="text-lg font-semibold text-slate-900">
              {hydrated ? `Drop ${noun} here, or click to choose` : `Choose ${noun} (several at once), or one zip of them`}
            </span>
            <span id={`${inputId}-hint`} className="text-sm text-slate-600">
              {tool.acceptedLabel} up to {tool.maxMegabytes}MB each, or one zip · up to {limits.maxFiles} files and {limits.maxMegabytes}MB in all
              {hydrated ? ' · or paste with Ctrl+V / ⌘V' : ''}
            </span>
            {/* Without JavaScript the browser's own control is the form: it says what was chosen. The
                same element either way, so files chosen before the page is hydrated are not lost. */}
            {fileInput}
          </label>
          {files.length > 0 ? <ChosenFiles files={files} locked={busy} onRemove={(key) => setFiles((list) => list.filter((f) => f.key !== key))} /> : null}
          {hydrated ? (
            <p className="flex flex-wrap justify-between gap-2 text-sm text-slate-700" data-testid="batch-totals">
              <span>
                {totals.count === null ? `Up to ${limits.maxFiles} files: the zip is counted when sent` : `${totals.count} of ${limits.maxFiles} files`}
              </span>
              <span>
                {formatMegabytes(totals.bytes)} of {limits.maxMegabytes} MB
              </span>
            </p>
          ) : null}
          {problem ? (
            <p role="alert" className="rounded-xl border border-amber-300 bg-amber-50 p-3 text-sm font-medium text-amber-950" data-testid="batch-problem">
              {problem}
            </p>
          ) : null}
          {overCap && team && cap ? (
            <section
              aria-label={OVER_CAP_TITLE}
              aria-live="polite"
              className="space-y-2 rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950"
              data-testid="state-over-cap"
            >
              <h2 className="text-base font-semibold">{OVER_CAP_TITLE}</h2>
              <OverCapText teamName={team.name} cap={cap} cost={capCost} subject={capSubject} error={null} />
            </section>
          ) : null}
          {sending ? (
            <ProgressPanel progress={{ percent: Math.round(sending.fraction * 100), message: sending.fraction < 1 ? UPLOAD_MESSAGE : 'Starting the batch' }} />
          ) : null}
        </section>
        <section aria-label="Settings" className="min-w-0 space-y-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm">
          <h2 className="text-base font-semibold text-slate-900">{tool.name} options</h2>
          <BatchToolOptions key={tool.slug} tool={tool.slug} />
          <div className="space-y-2">
            <p className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 text-sm">
              <span className="font-semibold text-slate-900" data-testid="tool-cost">
                {formatCredits(cost)} per file{totals.count !== null && totals.count > 0 ? ` · ${formatCredits(totals.count * cost)} in all` : ''}
              </span>
              <CreditsLine balance={balance} />
            </p>
            {team && cap ? <HeadroomLine teamName={team.name} cap={cap} /> : null}
            <ProcessButton
              disabled={busy || checking || totals.chosen === 0 || problem !== null || overCap}
              blocked={blocked || everyBatchOverCap}
              busy={busy}
              label="Run the batch"
              busyLabel="Sending the batch…"
            />
            {needsSignIn ? (
              <p className="text-sm text-slate-700">
                Converting SVG files needs a free account.{' '}
                <Link to="/login?from=/tools/batch?tool=svg-converter" className="font-semibold text-indigo-700 underline underline-offset-2">
                  Sign in or create one
                </Link>
                .
              </p>
            ) : null}
          </div>
        </section>
      </div>
    </Form>
  )
}

/**
 * The over-cap panel's "Use my own credits" posts this form (outside the batch's, which holds the
 * files): with JavaScript by fetcher, so the listed files stay; without, the page comes back to
 * /tools/batch on the own balance.
 */
function OwnCreditsForm({ viewer }: { viewer: Viewer | undefined }) {
  return viewer?.workingTeam?.cap ? <UseOwnCreditsForm /> : null
}

function ChosenFiles({ files, locked, onRemove }: { files: ChosenFile[]; locked: boolean; onRemove: (key: string) => void }) {
  return (
    <ul aria-label="Chosen files" className="divide-y divide-slate-200 rounded-xl border border-slate-200" data-testid="chosen-files">
      {files.map((f) => (
        <li key={f.key} className="flex items-center gap-3 px-3 py-2 text-sm">
          <div className="min-w-0 flex-1">
            <p className="truncate font-medium text-slate-900" title={f.file.name}>
              {f.file.name}
            </p>
            <p className="mt-0.5 text-xs text-slate-600">
              {formatMegabytes(f.file.size)}
              {f.state === 'checking' ? ' · Checking…' : f.state === 'ready' ? (f.zip ? ` · ${zipLabel(f.runs)}` : ' · Ready') : null}
            </p>
            {f.state === 'refused' ? <p className="mt-0.5 text-xs font-medium text-red-800">Not sent: {f.message}</p> : null}
          </div>
          <button
            type="button"
            disabled={locked}
            onClick={() => onRemove(f.key)}
            className="inline-flex min-h-10 shrink-0 items-center rounded-lg border border-slate-300 bg-white px-3 text-sm font-medium text-slate-800 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-50"
          >
            Remove<span className="sr-only"> {f.file.name}</span>
          </button>
        </li>
      ))}
    </ul>
  )
}

/** The chosen tool's own option controls (tool-options.tsx), with their state. */
function BatchToolOptions({ tool }: { tool: ToolSlug }) {
  switch (tool) {
    case 'background-remover':
      return <RemoverOptions />
    case 'face-blurrer':
      return <BlurrerOptions />
    case 'image-enhancer':
      return <EnhancerOptions />
    case 'svg-converter':
      return <ConverterOptions />
    case 'face-restorer':
      return (
        <>
          <p className="text-sm text-slate-600">Every face found in each portrait is restored, and the portrait comes back at 2×.</p>
          <FormatOptions />
        </>
      )
  }
}

function RemoverOptions() {
  const { choice, setChoice, custom, setCustom } = useBackgroundChoice()
  return (
    <>
      <BackgroundOptions choice={choice} custom={custom} onChoose={setChoice} onCustomChange={setCustom} />
      <ModelOptions />
      <CutoutOutputOptions backgroundImage={false} />
    </>
  )
}

function BlurrerOptions() {
  const [blur, setBlur] = useState<number>(BLUR.default)
  return (
    <>
      <BlurOptions blur={blur} onBlur={setBlur} />
      <FormatOptions />
    </>
  )
}

function EnhancerOptions() {
  const [denoise, setDenoise] = useState<number>(DENOISE.default)
  return (
    <>
      <DenoiseOptions denoise={denoise} onDenoise={setDenoise} />
      <FormatOptions />
    </>
  )
}

function ConverterOptions() {
  const choices = useSvgChoices()
  return <SvgOptions choices={choices} />
}

/** What a chosen zip makes: its runs as counted here, or (not counted here) only that it is a zip. */
function zipLabel(runs: number | null): string {
  if (runs === null) return 'Zip of images'
  return `Zip of ${runs} ${runs === 1 ? 'file' : 'files'} to run`
}
