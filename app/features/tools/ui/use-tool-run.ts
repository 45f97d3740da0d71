// One tool run in the browser: the chosen file, its checks, the upload with real progress, the job's
// real progress while a worker runs it (polled from GET /api/jobs/<id>/), the outcome (result or
// error, with toast) and the credits the server says remain. Each screen supplies how to read a
// successful answer (the job's answer is exactly the tool endpoint's). A page opened on ?job=<id>
// (a run started earlier, or without JavaScript) picks the job up where it is.
import { useLoaderData, useRevalidator } from '@remix-run/react'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { ProgressStep, ToolDefinition } from '~/catalog/tools'
import { toast } from '~/ui/toast'
import { checkFile } from './file-checks'
import { jobHasEnded, type JobView } from '~/features/jobs/view'
import { followJob, JOB_POST_WAIT_SECONDS, readJson, sendToolRequest, type JobStatusBody, type ToolHttpResponse } from './send-tool-request'
import { stagePlan, uploadStage } from './stages'
import { resultAddresses } from './page-result'
import { useBalanceReport } from '~/features/layout/root-data'
import { ERROR_TOAST_MS, failureMessage, remainingFrom, SUCCESS_TOAST_MS, TOOL_MESSAGES } from './tool-messages'

export type RunStatus = 'idle' | 'ready' | 'processing' | 'complete' | 'error'

export const FAILED_STAGE_MESSAGE = 'Processing failed'
/** Where the browser sends a run: the asynchronous API, so the screen can follow the job. */
const JOBS_PATH = '/api/jobs/'

/** Images asked for ahead of their <img>: held until loaded, so the browser's image cache has them to hand. */
const warming = new Set<HTMLImageElement>()
function warmImage(src: string) {
  const image = new Image()
  image.decoding = 'async'
  const done = () => warming.delete(image)
  image.onload = done
  image.onerror = done
  warming.add(image)
  image.src = src
}

/** A failure found while reading a successful answer (e.g. a missing field); its message is shown. */
export class ToolRunError extends Error {}

export interface ToolRunOptions<R> {
  /** No longer used: the stages now come from the job's real progress. */
  extraWaiting?: readonly ProgressStep[]
  /**
   * Reads a 2xx answer into the screen's result; throw ToolRunError to fail with a message. `resultUrl`
   * is the stored result's address (null when the job gave none: the body is then the result).
   */
  interpret: (response: ToolHttpResponse, resultUrl: string | null) => Promise<R>
  /**
   * The screen shows the result from its address (a preview, the full file on demand), never from the
   * answer's body: only the answer's headers are fetched when the job gave an address (decision 179).
   */
  headersOnly?: boolean
  /** Frees what a result holds (object URLs) when it is replaced. */
  release?: (result: R) => void
  onSuccess?: (result: R) => void
  onFailure?: (message: string, body: unknown) => void
  /** Skip the default success toast (a screen with its own). */
  quietSuccess?: boolean
}

export function useToolRun<R>(tool: ToolDefinition, options: ToolRunOptions<R>) {
  const messages = TOOL_MESSAGES[tool.slug]
  const plan = useMemo(() => stagePlan(tool.steps), [tool.steps])
  const revalidator = useRevalidator()
  // The job the page was opened on (?job=<id>), still running: shown (and, with JavaScript, followed).
  const pageJob = (useLoaderData() as { job?: JobView | null } | undefined)?.job ?? null
  const resumable = pageJob && pageJob.tool === tool.slug && !jobHasEnded(pageJob.status) ? pageJob : null
  const [file, setFile] = useState<File | null>(null)
  const [fileUrl, setFileUrl] = useState<string | null>(null)
  const [status, setStatus] = useState<RunStatus>(resumable ? 'processing' : 'idle')
  const [progress, setProgress] = useState<ProgressStep | null>(
    resumable ? { percent: resumable.progress, message: resumable.stage ?? plan.upload.message } : null,
  )
  const [jobId, setJobId] = useState<string | null>(resumable?.id ?? null)
  const [error, setError] = useState<string | null>(null)
  const [result, setResult] = useState<R | null>(null)
  const [remaining, setShownRemaining] = useState<number | null>(null)
  const reportBalance = useBalanceReport()
  // The page's one balance (root-data.ts) learns it in the same render as this run's card.
  const setRemaining = useCallback(
    (balance: number) => {
      setShownRemaining(balance)
      reportBalance(balance)
    },
    [reportBalance],
  )
  const abort = useRef<AbortController | null>(null)
  const optionsRef = useRef(options)
  optionsRef.current = options

  const replaceResult = useCallback((next: R | null) => {
    setResult((previous) => {
      if (previous !== null && previous !== next) optionsRef.current.release?.(previous)
      return next
    })
  }, [])

  useEffect(() => () => fileUrl ? URL.revokeObjectURL(fileUrl) : undefined, [fileUrl])
  useEffect(() => () => abort.current?.abort(), [])

  /** A new file resets results, progress and errors. Returns the alert text when it was refused. */
  const selectFile = useCallback(
    (next: File | null): string | null => {
      abort.current?.abort()
      replaceResult(null)
      setProgress(null)
      setError(null)
      if (next) {
        const problem = checkFile(tool, next)
        if (problem) {
          window.alert(problem)
          setFile(null)
          setFileUrl(null)
          setStatus('idle')
          setError(problem)
          return problem
        }
      }
      setFile(next)
      setFileUrl(next ? URL.createObjectURL(next) : null)
      setStatus(next ? 'ready' : 'idle')
      return null
    },
    [tool, replaceResult],
  )

  const fail = useCallback(
    (message: string, body: unknown) => {
      setStatus('error')
      setError(message)
      setProgress((current) => ({ percent: current?.percent ?? 0, message: FAILED_STAGE_MESSAGE }))
      toast({ title: messages.failureToast, description: message, variant: 'destructive', durationMs: ERROR_TOAST_MS })
      optionsRef.current.onFailure?.(message, body)
    },
    [messages],
  )

  /** Shows a failure that never reached the server (e.g. sign-in needed). */
  const refuse = useCallback(
    (message: string, toastTitle: string) => {
      setStatus('error')
      setError(message)
      toast({ title: toastTitle, description: message, variant: 'destructive', durationMs: ERROR_TOAST_MS })
    },
    [],
  )

  /** A refusal or failure answer: its message, and the balance it (or its header) reports. */
  const failWith = useCallback(
    (body: unknown, headerRemaining: number | null) => {
      const bodyRemaining = body && typeof body === 'object' ? remainingFrom((body as { remaining?: unknown }).remaining) : null
      const left = bodyRemaining ?? headerRemaining
      if (left !== null) setRemaining(left)
      fail(failureMessage(body, messages.defaultError), body)
      revalidator.revalidate()
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [messages, fail],
  )

  /** Follows a job to its end, then reads its answer (the tool endpoint's) as a direct run would. */
  const finishJob = useCallback(
    async (id: string, controller: AbortController, known?: JobStatusBody) => {
      const ended = await followJob(id, {
        signal: controller.signal,
        headersOnly: optionsRef.current.headersOnly,
        known,
        onProgress: (job) => {
          if (job.status === 'queued') setProgress({ percent: plan.upload.percent, message: plan.upload.message })
          else setProgress({ percent: job.progress, message: job.stage ?? plan.upload.message })
          // The preview starts on its way while the answer's headers are asked for (one round trip saved).
          if (job.status === 'succeeded' && job.result_url) warmImage(resultAddresses(job.result_url).preview)
        },
      })
      if (controller.signal.aborted) return
      const response = ended.answer
      const headerRemaining = remainingFrom(response.header('X-Credits-Remaining'))
      if (!response.ok) return failWith(await readJson(response), headerRemaining)
      const outcome = await optionsRef.current.interpret(response, ended.job?.result_url ?? null)
      if (controller.signal.aborted) return
      if (headerRemaining !== null) setRemaining(headerRemaining)
      replaceResult(outcome)
      setProgress(plan.done)
      setStatus('complete')
      if (messages.success && !optionsRef.current.quietSuccess) {
        toast({ ...messages.success, variant: 'success', durationMs: SUCCESS_TOAST_MS })
      }
      optionsRef.current.onSuccess?.(outcome)
      revalidator.revalidate()
    },
    // revalidator changes identity on every state change; its revalidate is stable enough for a click.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [plan, messages, failWith, replaceResult],
  )

  const run = useCallback(
    async (form: FormData) => {
      abort.current?.abort()
      const controller = new AbortController()
      abort.current = controller
      replaceResult(null)
      setError(null)
      setStatus('processing')
      setProgress(uploadStage(plan, 0))
      let uploaded = false
      try {
        form.set('tool', tool.slug)
        const response = await sendToolRequest(JOBS_PATH, form, {
          signal: controller.signal,
          // A short run has ended by the answer, which then says so: no first poll.
          headers: { Prefer: `wait=${JOB_POST_WAIT_SECONDS}` },
          onUploadProgress: (fraction) => {
            if (!uploaded) setProgress(uploadStage(plan, fraction))
          },
          onUploaded: () => {
            uploaded = true
            setProgress(uploadStage(plan, 1))
          },
        })
        if (controller.signal.aborted) return
        const headerRemaining = remainingFrom(response.header('X-Credits-Remaining'))
        const body = await readJson(response)
        if (!response.ok) return failWith(body, headerRemaining)
        if (headerRemaining !== null) setRemaining(headerRemaining)
        const accepted = body as JobStatusBody | null
        const id = accepted?.id
        if (!id) throw new ToolRunError(messages.fallbackError)
        setJobId(id)
        // The address names the job: a reload, or coming back later, finds the run where it is.
        const here = new URL(window.location.href)
        here.searchParams.set('job', id)
        window.history.replaceState(window.history.state, '', here)
        await finishJob(id, controller, jobHasEnded(accepted.status) ? accepted : undefined)
      } catch (caught) {
        if (controller.signal.aborted) return
        fail(caught instanceof ToolRunError ? caught.message : messages.fallbackError, null)
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [plan, tool.slug, messages, fail, failWith, replaceResult, finishJob],
  )

  // A page opened on a job that is still running follows it.
  useEffect(() => {
    if (!resumable) return
    const controller = new AbortController()
    abort.current = controller
    finishJob(resumable.id, controller).catch(() => {
      if (!controller.signal.aborted) fail(messages.fallbackError, null)
    })
    return () => controller.abort()
    // Only the job the page was opened on.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [resumable?.id])

  return { file, fileUrl, status, progress, error, result, remaining, jobId, selectFile, run, refuse, setResult: replaceResult }
}
