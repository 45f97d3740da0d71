// One tool run in the browser: the chosen file, its checks, the upload with real progress, the stage
// walk while the server works, the outcome (result or error, with toast) and the credits the server
// says remain. Each screen supplies how to read a successful answer.
import { useRevalidator } from '@remix-run/react'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { ProgressStep, ToolDefinition } from '~/features/tools/catalog'
import { toast } from '~/ui/toast'
import { checkFile } from './file-checks'
import { readJson, sendToolRequest, type ToolHttpResponse } from './send-tool-request'
import { STAGE_INTERVAL_MS, stagePlan, uploadStage, waitingStage } from './stages'
import { ERROR_TOAST_MS, failureMessage, remainingFrom, SUCCESS_TOAST_MS, TOOL_MESSAGES } from './tool-messages'

export type RunStatus = 'idle' | 'ready' | 'processing' | 'complete' | 'error'

export const FAILED_STAGE_MESSAGE = 'Processing failed'

/** A failure found while reading a successful answer (e.g. a missing field); its message is shown. */
export class ToolRunError extends Error {}

export interface ToolRunOptions<R> {
  /** Extra middle stages shown after the table's own while the server keeps working. */
  extraWaiting?: readonly ProgressStep[]
  /** Reads a 2xx answer into the screen's result; throw ToolRunError to fail with a message. */
  interpret: (response: ToolHttpResponse) => Promise<R>
  /** Frees what a result holds (object URLs) when it is replaced. */
  release?: (result: R) => void
  onSuccess?: (result: R) => void
  onFailure?: (message: string, body: unknown) => void
  /** Skip the default success toast (a screen with its own). */
  quietSuccess?: boolean
}

export function useToolRun<R>(tool: ToolDefinition, options: ToolRunOptions<R>) {
  const messages = TOOL_MESSAGES[tool.slug]
  const plan = useMemo(() => stagePlan(tool.steps, options.extraWaiting), [tool.steps, options.extraWaiting])
  const revalidator = useRevalidator()
  const [file, setFile] = useState<File | null>(null)
  const [fileUrl, setFileUrl] = useState<string | null>(null)
  const [status, setStatus] = useState<RunStatus>('idle')
  const [progress, setProgress] = useState<ProgressStep | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [result, setResult] = useState<R | null>(null)
  const [remaining, setRemaining] = useState<number | null>(null)
  const timer = useRef<number | null>(null)
  const abort = useRef<AbortController | null>(null)
  const optionsRef = useRef(options)
  optionsRef.current = options

  const stopTimer = useCallback(() => {
    if (timer.current !== null) window.clearInterval(timer.current)
    timer.current = null
  }, [])

  const replaceResult = useCallback((next: R | null) => {
    setResult((previous) => {
      if (previous !== null && previous !== next) optionsRef.current.release?.(previous)
      return next
    })
  }, [])

  useEffect(() => () => fileUrl ? URL.revokeObjectURL(fileUrl) : undefined, [fileUrl])
  useEffect(
    () => () => {
      stopTimer()
      abort.current?.abort()
    },
    [stopTimer],
  )

  /** A new file resets results, progress and errors. Returns the alert text when it was refused. */
  const selectFile = useCallback(
    (next: File | null): string | null => {
      abort.current?.abort()
      stopTimer()
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
    [tool, stopTimer, replaceResult],
  )

  const fail = useCallback(
    (message: string, body: unknown) => {
      stopTimer()
      setStatus('error')
      setError(message)
      setProgress((current) => ({ percent: current?.percent ?? 0, message: FAILED_STAGE_MESSAGE }))
      toast({ title: messages.failureToast, description: message, variant: 'destructive', durationMs: ERROR_TOAST_MS })
      optionsRef.current.onFailure?.(message, body)
    },
    [messages, stopTimer],
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

  const run = useCallback(
    async (form: FormData) => {
      abort.current?.abort()
      const controller = new AbortController()
      abort.current = controller
      stopTimer()
      replaceResult(null)
      setError(null)
      setStatus('processing')
      setProgress(uploadStage(plan, 0))
      let tick = 0
      try {
        const response = await sendToolRequest(tool.apiPath, form, {
          signal: controller.signal,
          onUploadProgress: (fraction) => {
            if (timer.current === null) setProgress(uploadStage(plan, fraction))
          },
          onUploaded: () => {
            if (timer.current !== null) return
            setProgress(waitingStage(plan, 0))
            timer.current = window.setInterval(() => {
              tick += 1
              setProgress(waitingStage(plan, tick))
            }, STAGE_INTERVAL_MS)
          },
        })
        stopTimer()
        if (controller.signal.aborted) return
        const headerRemaining = remainingFrom(response.header('X-Credits-Remaining'))
        if (!response.ok) {
          const body = await readJson(response)
          const bodyRemaining =
            body && typeof body === 'object' ? remainingFrom((body as { remaining?: unknown }).remaining) : null
          const left = bodyRemaining ?? headerRemaining
          if (left !== null) setRemaining(left)
          fail(failureMessage(body, messages.defaultError), body)
          revalidator.revalidate()
          return
        }
        const outcome = await optionsRef.current.interpret(response)
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
      } catch (caught) {
        if (controller.signal.aborted) return
        fail(caught instanceof ToolRunError ? caught.message : messages.fallbackError, null)
      }
    },
    // revalidator changes identity on every state change; its revalidate is stable enough for a click.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [plan, tool.apiPath, messages, fail, stopTimer, replaceResult],
  )

  return { file, fileUrl, status, progress, error, result, remaining, selectFile, run, refuse, setResult: replaceResult }
}
