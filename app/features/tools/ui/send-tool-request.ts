// Posts a tool's form to its /api endpoint with XMLHttpRequest: fetch cannot report upload progress,
// and the first progress stage follows the real upload. Browser-only.
import { jobHasEnded } from '~/features/jobs/view'

export interface ToolHttpResponse {
  status: number
  ok: boolean
  header(name: string): string | null
  body: Blob
}

export interface SendOptions {
  /** 0..1 as the request body is sent. */
  onUploadProgress?: (fraction: number) => void
  /** The whole body has been sent; the server is working. */
  onUploaded?: () => void
  signal?: AbortSignal
  /** More request headers (a job's `Prefer: wait=N`). */
  headers?: Record<string, string>
}

export class RequestFailedError extends Error {}

export function sendToolRequest(url: string, form: FormData, options: SendOptions = {}): Promise<ToolHttpResponse> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', url)
    xhr.responseType = 'blob'
    // Same origin: the session or visitor cookie goes along; no token is ever held by script.
    xhr.withCredentials = true
    xhr.setRequestHeader('Accept', 'application/json, image/*')
    for (const [name, value] of Object.entries(options.headers ?? {})) xhr.setRequestHeader(name, value)
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) options.onUploadProgress?.(event.loaded / event.total)
    }
    xhr.upload.onload = () => {
      options.onUploadProgress?.(1)
      options.onUploaded?.()
    }
    xhr.onload = () => {
      resolve({
        status: xhr.status,
        ok: xhr.status >= 200 && xhr.status < 300,
        header: (name) => xhr.getResponseHeader(name),
        body: xhr.response instanceof Blob ? xhr.response : new Blob([]),
      })
    }
    xhr.onerror = () => reject(new RequestFailedError('Network error'))
    xhr.onabort = () => reject(new RequestFailedError('Request aborted'))
    xhr.ontimeout = () => reject(new RequestFailedError('Request timed out'))
    if (options.signal) {
      if (options.signal.aborted) return xhr.abort()
      options.signal.addEventListener('abort', () => xhr.abort(), { once: true })
    }
    xhr.send(form)
  })
}

/** The JSON body of a response, or null when it is not JSON. */
export async function readJson(response: ToolHttpResponse): Promise<unknown> {
  try {
    return JSON.parse(await response.body.text())
  } catch {
    return null
  }
}

/** GET /api/jobs/<id>/ as the browser reads it. */
export interface JobStatusBody {
  id: string
  status: 'queued' | 'running' | 'succeeded' | 'failed'
  progress: number
  stage: string | null
  /** The stored result's owner-only address, once the job succeeded. */
  result_url?: string | null
}

/** How often the browser asks a running job how far it is. */
export const JOB_POLL_MS = 400

/**
 * How long the POST of a job may wait for the job's end (`Prefer: wait`): a short run's answer then says
 * it has ended, and the first poll, a round trip, is saved (decision 184). A longer run's progress shows
 * this much later than it would have.
 */
export const JOB_POST_WAIT_SECONDS = 2

function getAnswer(url: string, signal: AbortSignal, method: 'GET' | 'HEAD' = 'GET'): Promise<ToolHttpResponse> {
  return fetch(url, { method, credentials: 'same-origin', signal, headers: { Accept: 'application/json, image/*' } }).then(async (response) => ({
    status: response.status,
    ok: response.ok,
    header: (name: string) => response.headers.get(name),
    body: await response.blob(),
  }))
}

/**
 * Polls the job until it ends, reporting each reading, then fetches its answer (exactly what the
 * tool's own endpoint answers). A reading that fails (network) is retried at the next tick.
 * `headersOnly`: a succeeded job's answer is asked for with HEAD, its headers only; the result itself
 * is shown from its address (a small preview, the full file on demand: decision 179). On a slow link
 * its full body (half a megabyte for a cutout) would hold the result card back for seconds.
 */
export async function followJob(
  id: string,
  options: {
    signal: AbortSignal
    onProgress: (job: JobStatusBody) => void
    headersOnly?: boolean
    /** The job as already read (the POST's answer after its wait): used as the first reading. */
    known?: JobStatusBody
  },
): Promise<{ answer: ToolHttpResponse; job: JobStatusBody | null }> {
  const url = `/api/jobs/${encodeURIComponent(id)}/`
  let known = options.known
  for (;;) {
    if (options.signal.aborted) throw new RequestFailedError('Request aborted')
    const response = known
      ? null
      : await fetch(url, { credentials: 'same-origin', signal: options.signal, headers: { Accept: 'application/json' } }).catch((error: unknown) => {
          if (options.signal.aborted) throw error
          return null
        })
    if (response && response.status === 404) return { answer: await getAnswer(url, options.signal), job: null }
    const job = known ?? (response?.ok ? ((await response.json()) as JobStatusBody) : null)
    known = undefined
    if (job) {
      options.onProgress(job)
      if (job.status === 'succeeded' && job.result_url && options.headersOnly) {
        const head = await getAnswer(`${url}answer/`, options.signal, 'HEAD')
        // Anything but a success is read in full: its JSON says what went wrong.
        if (head.ok) return { answer: head, job }
      }
      if (jobHasEnded(job.status)) return { answer: await getAnswer(`${url}answer/`, options.signal), job }
    }
    await new Promise((resolve) => setTimeout(resolve, JOB_POLL_MS))
  }
}
