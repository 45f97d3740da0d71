// Posts a tool's form to its /api endpoint with XMLHttpRequest: fetch cannot report upload progress,
// and the first progress stage follows the real upload. Browser-only.

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
}

/** How often the browser asks a running job how far it is. */
export const JOB_POLL_MS = 400

function getAnswer(url: string, signal: AbortSignal): Promise<ToolHttpResponse> {
  return fetch(url, { credentials: 'same-origin', signal, headers: { Accept: 'application/json, image/*' } }).then(async (response) => ({
    status: response.status,
    ok: response.ok,
    header: (name: string) => response.headers.get(name),
    body: await response.blob(),
  }))
}

/**
 * Polls the job until it ends, reporting each reading, then fetches its answer (exactly what the
 * tool's own endpoint answers). A reading that fails (network) is retried at the next tick.
 */
export async function followJob(
  id: string,
  options: { signal: AbortSignal; onProgress: (job: JobStatusBody) => void },
): Promise<{ answer: ToolHttpResponse }> {
  const url = `/api/jobs/${encodeURIComponent(id)}/`
  for (;;) {
    if (options.signal.aborted) throw new RequestFailedError('Request aborted')
    const response = await fetch(url, { credentials: 'same-origin', signal: options.signal, headers: { Accept: 'application/json' } }).catch(
      (error: unknown) => {
        if (options.signal.aborted) throw error
        return null
      },
    )
    if (response && response.status === 404) return { answer: await getAnswer(url, options.signal) }
    const job = response?.ok ? ((await response.json()) as JobStatusBody) : null
    if (job) {
      options.onProgress(job)
      if (job.status === 'succeeded' || job.status === 'failed') return { answer: await getAnswer(`${url}answer/`, options.signal) }
    }
    await new Promise((resolve) => setTimeout(resolve, JOB_POLL_MS))
  }
}
