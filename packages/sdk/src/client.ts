// createClient: the studio's API, typed from its own OpenAPI document (generated/openapi.d.ts) through
// openapi-fetch, with the ergonomics a script wants on top: one method per tool taking a path, bytes, a
// Blob or a stream; jobs and batches that wait with progress; FacetError for every non-2xx answer.
import createFetchClient from 'openapi-fetch'
import type { components, paths } from './generated/openapi'
import { errorFromAnswer, errorFromResponse, FacetError } from './errors'
import { toFormFile, type FileInput } from './files'

export type Job = components['schemas']['Job']
export type JobAccepted = components['schemas']['Accepted']
export type Batch = components['schemas']['Batch']
export type BatchAccepted = components['schemas']['BatchAccepted']
export type Credits = components['schemas']['Credits']
export type ToolSlug = Job['tool']

/** Each tool's synchronous endpoint (typed: a path the document does not have fails the type check). */
export const TOOL_PATHS = {
  'background-remover': '/api/remove-bg/',
  'face-restorer': '/api/face-retouch/restore/',
  'face-blurrer': '/api/face-blur/blur/',
  'image-enhancer': '/api/image-scaler/scale/',
  'svg-converter': '/api/svg2image/convert/',
} as const satisfies Record<ToolSlug, keyof paths>

type ToolPath = (typeof TOOL_PATHS)[ToolSlug]
type FormOf<P extends ToolPath> = paths[P]['post']['requestBody']['content']['multipart/form-data']
/** The form's option fields as a script writes them: `true` for "true", 24 for "24". */
type Loose<T> = { [K in keyof T]: T[K] extends 'true' | 'false' ? boolean | T[K] : string extends T[K] ? string | number : T[K] }

/** The file fields are the method's own argument; every other field of the endpoint is an option. */
export type ToolOptions<S extends ToolSlug> = Loose<Omit<FormOf<(typeof TOOL_PATHS)[S]>, 'image' | 'svg' | 'background_image'>>
export type RemoveBackgroundOptions = ToolOptions<'background-remover'> & { backgroundImage?: FileInput }
export type BlurFacesOptions = ToolOptions<'face-blurrer'>
export type RestoreFacesOptions = ToolOptions<'face-restorer'>
export type EnhanceImageOptions = ToolOptions<'image-enhancer'>
export type ConvertSvgOptions = ToolOptions<'svg-converter'>

/** Per call: who pays, how to retry safely, how to name the upload, how to give up. */
export interface CallOptions {
  /** Sent as Idempotency-Key: a retry of a delivered run answers again without a second charge. */
  idempotencyKey?: string
  /** Work as this team (X-Team) for this call; defaults to the client's `team`. */
  team?: string
  /** The upload's file name (the download name follows it); paths and Files carry their own. */
  filename?: string
  signal?: AbortSignal
}

export interface ToolResult {
  /** The result's bytes (the restorer's stored result, fetched). */
  data: Buffer
  contentType: string
  /** The download name the studio gives the result, when it gives one. */
  filename: string | null
  creditsRemaining: number | null
  creditsCharged: number
  /** X-Facet-Note: what the studio changed from what was asked (another model, no face found...). */
  note: string | null
  headers: Headers
}

export interface WaitOptions {
  /** Called whenever the status, progress or stage changes. */
  onProgress?: (state: Job) => void
  /** Between two polls (default 500 ms). */
  intervalMs?: number
  signal?: AbortSignal
}

export interface BatchWaitOptions {
  /** Called whenever a file of the batch ends or moves on. */
  onProgress?: (batch: Batch) => void
  intervalMs?: number
  signal?: AbortSignal
}

export interface ClientOptions {
  /** The studio's address, e.g. http://localhost:3000. */
  baseUrl: string
  /** A studio API key: fs_live_… spends credits, fs_test_… runs in test mode. */
  apiKey: string
  /** Work as this team (its id) on every call: the team's credits pay. */
  team?: string
  /** A fetch of your own (proxies, tests). */
  fetch?: typeof fetch
}

/** A network failure: the studio could not be reached or the connection broke (no answer to read). */
export class FacetConnectionError extends Error {
  override readonly name = 'FacetConnectionError'
  constructor(baseUrl: string, cause: unknown) {
    // undici's "fetch failed" hides the reason (ECONNREFUSED, ENOTFOUND...) in its own cause.
    const reason = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause)
    super(`Cannot reach the studio at ${baseUrl}: ${reason}`, { cause })
  }
}

const FILE_FIELD: Record<ToolSlug, 'image' | 'svg'> = {
  'background-remover': 'image',
  'face-restorer': 'image',
  'face-blurrer': 'image',
  'image-enhancer': 'image',
  'svg-converter': 'svg',
}
const ENDED_JOB: ReadonlySet<Job['status']> = new Set(['succeeded', 'failed'])
const SDK_USER_AGENT = 'facet-studio-sdk/1.0.0'
const DEFAULT_POLL_MS = 500

function numberHeader(headers: Headers, name: string): number | null {
  const value = headers.get(name)
  return value === null || value === '' || !Number.isFinite(Number(value)) ? null : Number(value)
}

/** The name in Content-Disposition, preferring the UTF-8 `filename*` form (RFC 6266). */
export function dispositionFilename(header: string | null): string | null {
  if (!header) return null
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(header)
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim())
    } catch {
      // fall through to the plain form
    }
  }
  return /filename="([^"]*)"/i.exec(header)?.[1] ?? /filename=([^;]+)/i.exec(header)?.[1]?.trim() ?? null
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

function formValue(value: unknown): string {
  return typeof value === 'string' ? value : String(value)
}

export function createClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const baseFetch = options.fetch ?? globalThis.fetch
  // Every request goes through here: a thrown fetch (refused, reset, DNS) becomes a FacetConnectionError.
  const guardedFetch: typeof fetch = async (input, init) => {
    try {
      return await baseFetch(input, init)
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') throw error
      throw new FacetConnectionError(baseUrl, error)
    }
  }
  const api = createFetchClient<paths>({
    baseUrl,
    fetch: guardedFetch,
    headers: { Authorization: `Bearer ${options.apiKey}`, 'User-Agent': SDK_USER_AGENT },
  })

  function headersFor(call: CallOptions = {}): Record<string, string> {
    const headers: Record<string, string> = {}
    const team = call.team ?? options.team
    if (team) headers['X-Team'] = team
    if (call.idempotencyKey) headers['Idempotency-Key'] = call.idempotencyKey
    return headers
  }

  /** A GET or POST outside the typed paths' JSON (results, answers, downloads), with the same key and errors. */
  async function raw(path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
    const response = await guardedFetch(new URL(path, `${baseUrl}/`), {
      ...init,
      headers: { Authorization: `Bearer ${options.apiKey}`, 'User-Agent': SDK_USER_AGENT, ...init.headers },
    })
    if (!response.ok) throw await errorFromResponse(response)
    return response
  }

  async function toolForm(tool: ToolSlug, file: FileInput, fields: Record<string, unknown>, call: CallOptions, extraFiles: Record<string, FileInput | undefined> = {}): Promise<FormData> {
    const form = new FormData()
    for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== null) form.set(name, formValue(value))
    const upload = await toFormFile(file, tool === 'svg-converter' ? 'drawing.svg' : 'image', call.filename)
    form.set(FILE_FIELD[tool], upload.blob, upload.filename)
    for (const [name, extra] of Object.entries(extraFiles)) {
      if (extra === undefined) continue
      const second = await toFormFile(extra, name)
      form.set(name, second.blob, second.filename)
    }
    return form
  }

  /** An image answer as a ToolResult; the restorer's JSON answer is followed to its stored result. */
  async function toToolResult(response: Response, call: CallOptions): Promise<ToolResult> {
    const contentType = response.headers.get('Content-Type') ?? 'application/octet-stream'
    const base = {
      creditsRemaining: numberHeader(response.headers, 'X-Credits-Remaining'),
      creditsCharged: numberHeader(response.headers, 'X-Credits-Charged') ?? 0,
      note: response.headers.get('X-Facet-Note'),
      headers: response.headers,
    }
    if (contentType.startsWith('application/json')) {
      const restored = (await response.json()) as components['schemas']['Restored']
      const stored = await raw(restored.restored_url, { headers: headersFor(call), signal: call.signal })
      return {
        ...base,
        data: Buffer.from(await stored.arrayBuffer()),
        contentType: stored.headers.get('Content-Type') ?? 'image/png',
        filename: dispositionFilename(stored.headers.get('Content-Disposition')),
      }
    }
    return { ...base, data: Buffer.from(await response.arrayBuffer()), contentType, filename: dispositionFilename(response.headers.get('Content-Disposition')) }
  }

  async function runTool(tool: ToolSlug, file: FileInput, fields: Record<string, unknown>, call: CallOptions, extraFiles?: Record<string, FileInput | undefined>): Promise<ToolResult> {
    const form = await toolForm(tool, file, fields, call, extraFiles)
    const response = await raw(TOOL_PATHS[tool], { method: 'POST', body: form, headers: headersFor(call), signal: call.signal })
    return toToolResult(response, call)
  }

  /** openapi-fetch's answer, or the FacetError its non-2xx answer carries. */
  function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
    if (!result.response.ok || result.data === undefined) throw errorFromAnswer(result.response, result.error)
    return result.data
  }

  const jobs = {
    /** POST /api/jobs/: answered at once (202), the run follows in the queue. */
    async create<S extends ToolSlug>(tool: S, file: FileInput, fields: Partial<ToolOptions<S>> = {}, call: CallOptions = {}): Promise<JobAccepted> {
      const form = await toolForm(tool, file, { ...fields, tool }, call)
      const response = await raw('/api/jobs/', { method: 'POST', body: form, headers: headersFor(call), signal: call.signal })
      return (await response.json()) as JobAccepted
    },
    async get(id: string, call: CallOptions = {}): Promise<Job> {
      return unwrap(await api.GET('/api/jobs/{id}/', { params: { path: { id }, header: headersFor(call) }, signal: call.signal }))
    },
    /** Polls until the job has ended (succeeded or failed) and answers its last state. */
    async wait(id: string, wait: WaitOptions = {}, call: CallOptions = {}): Promise<Job> {
      let seen = ''
      for (;;) {
        const job = await jobs.get(id, { ...call, signal: wait.signal ?? call.signal })
        const state = `${job.status}:${job.progress}:${job.stage ?? ''}`
        if (state !== seen) wait.onProgress?.(job)
        seen = state
        if (ENDED_JOB.has(job.status)) return job
        await sleep(wait.intervalMs ?? DEFAULT_POLL_MS, wait.signal)
      }
    },
    /** An ended job's answer as its tool's endpoint gives it: the image, or a FacetError with the run's failure. */
    async result(id: string, call: CallOptions = {}): Promise<ToolResult> {
      return toToolResult(await raw(`/api/jobs/${encodeURIComponent(id)}/answer/`, { headers: headersFor(call), signal: call.signal }), call)
    },
    /** create, wait (with progress) and result in one call. */
    async run<S extends ToolSlug>(tool: S, file: FileInput, fields: Partial<ToolOptions<S>> = {}, wait: WaitOptions = {}, call: CallOptions = {}): Promise<ToolResult> {
      const accepted = await jobs.create(tool, file, fields, call)
      await jobs.wait(accepted.id, wait, call)
      return jobs.result(accepted.id, call)
    },
  }

  const batches = {
    /** POST /api/batches/: up to 100 files through one tool; nothing is charged until each file runs. */
    async create<S extends ToolSlug>(tool: S, files: FileInput[], fields: Partial<ToolOptions<S>> = {}, call: CallOptions = {}): Promise<BatchAccepted> {
      const form = new FormData()
      form.set('tool', tool)
      for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== null) form.set(name, formValue(value))
      for (const [index, file] of files.entries()) {
        const upload = await toFormFile(file, `file-${index + 1}`)
        form.append(FILE_FIELD[tool], upload.blob, upload.filename)
      }
      const response = await raw('/api/batches/', { method: 'POST', body: form, headers: headersFor(call), signal: call.signal })
      return (await response.json()) as BatchAccepted
    },
    async get(id: string, call: CallOptions = {}): Promise<Batch> {
      return unwrap(await api.GET('/api/batches/{id}/', { params: { path: { id }, header: headersFor(call) }, signal: call.signal }))
    },
    async wait(id: string, wait: BatchWaitOptions = {}, call: CallOptions = {}): Promise<Batch> {
      let seen = ''
      for (;;) {
        const batch = await batches.get(id, { ...call, signal: wait.signal ?? call.signal })
        const state = `${batch.status}:${batch.done}:${batch.failed}:${batch.items.map((i) => i.progress).join(',')}`
        if (state !== seen) wait.onProgress?.(batch)
        seen = state
        if (batch.status === 'completed') return batch
        await sleep(wait.intervalMs ?? DEFAULT_POLL_MS, wait.signal)
      }
    },
    /** A completed batch's zip: each result under its file's name, manifest.json, and errors.json when any failed. */
    async download(id: string, call: CallOptions = {}): Promise<Buffer> {
      const response = await raw(`/api/batches/${encodeURIComponent(id)}/download/`, { headers: headersFor(call), signal: call.signal })
      return Buffer.from(await response.arrayBuffer())
    },
  }

  return {
    /** The typed openapi-fetch client itself, for every endpoint the methods below do not cover. */
    api,
    removeBackground: (file: FileInput, fields: RemoveBackgroundOptions = {}, call: CallOptions = {}) => {
      const { backgroundImage, ...rest } = fields
      return runTool('background-remover', file, rest, call, { background_image: backgroundImage })
    },
    blurFaces: (file: FileInput, fields: BlurFacesOptions, call: CallOptions = {}) => runTool('face-blurrer', file, fields, call),
    restoreFaces: (file: FileInput, fields: RestoreFacesOptions = {}, call: CallOptions = {}) => runTool('face-restorer', file, fields, call),
    enhanceImage: (file: FileInput, fields: EnhanceImageOptions = {}, call: CallOptions = {}) => runTool('image-enhancer', file, fields, call),
    convertSvg: (file: FileInput, fields: ConvertSvgOptions, call: CallOptions = {}) => runTool('svg-converter', file, fields, call),
    /** Any tool by its slug (what the command line and batches use). */
    runTool: (tool: ToolSlug, file: FileInput, fields: Record<string, unknown> = {}, call: CallOptions = {}) => runTool(tool, file, fields, call),
    jobs,
    batches,
    /** The caller's balance (the team's when working as one). */
    async balance(call: CallOptions = {}): Promise<Credits> {
      return unwrap(await api.GET('/api/credits/balance/', { params: { header: headersFor(call) }, signal: call.signal }))
    },
  }
}

export type FacetClient = ReturnType<typeof createClient>
export { FacetError }
