// Which model files exist, which tool needs which, and the one place that opens sessions and runs
// them. Sessions live in inference threads (worker_threads running inference-worker.mjs), never on
// the main thread: onnxruntime-node's `run` holds the thread that calls it for the whole inference,
// which froze every other request of a web + worker process (docs/decisions/021, 070). A model's
// session is opened once (per file, cached here) in one thread and reused by every run.
import { existsSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Worker } from 'node:worker_threads'
import type ort from 'onnxruntime-node'
import { config } from '~/config.server'
import { RequestThread } from '~/utils/request-thread.server'
import { shippedScript } from '~/utils/shipped-script.server'
import { singleton } from '~/utils/singleton.server'
import type { ToolSlug } from '../../../catalog/tools'
import { MODELS, modelEntry } from './manifest'

export const INSTALL_COMMAND = 'npm run models'

export class ModelMissingError extends Error {
  constructor(
    readonly modelId: string,
    readonly file: string,
  ) {
    super(`The model "${modelId}" (${file}) is not installed. Run \`${INSTALL_COMMAND}\` to install it.`)
    this.name = 'ModelMissingError'
  }
}

export function modelPath(id: string): string {
  return path.join(config().modelsDir, modelEntry(id).file)
}

export function isModelInstalled(id: string): boolean {
  const file = modelPath(id)
  return existsSync(file) && statSync(file).size > 0
}

/** A model whose weights are not licensed for commercial use loads only when the operator allows it. */
export function licenceAllows(id: string): boolean {
  return modelEntry(id).commercialUse || config().ALLOW_NONCOMMERCIAL_MODELS
}

/** Installed and allowed to load: what the tools may use. */
export function isModelUsable(id: string): boolean {
  return isModelInstalled(id) && licenceAllows(id)
}

export class ModelLicenceError extends Error {
  constructor(readonly modelId: string) {
    super(licenceRefusal(modelId))
    this.name = 'ModelLicenceError'
  }
}

function licenceRefusal(id: string): string {
  return `The model "${id}" is installed, but its weights are licensed ${modelEntry(id).license}: it is not loaded unless ALLOW_NONCOMMERCIAL_MODELS=true.`
}

export interface ModelState {
  id: string
  file: string
  installed: boolean
  /** Installed and allowed by its licence: the tools use it. */
  usable: boolean
  optional: boolean
  license: string
  commercialUse: boolean
  /** Why an installed model is not used (its licence), for the operator. */
  note?: string
}

export async function modelStatus(): Promise<ModelState[]> {
  return MODELS.map((m) => {
    const installed = isModelInstalled(m.id)
    const usable = installed && licenceAllows(m.id)
    return {
      id: m.id,
      file: m.file,
      installed,
      usable,
      optional: m.optional,
      license: m.license,
      commercialUse: m.commercialUse,
      ...(installed && !usable ? { note: licenceRefusal(m.id) } : {}),
    }
  })
}

/** The face restorer's optional model: without it the restorer runs in Fallback detail mode. */
export const GFPGAN_MODEL = 'gfpgan'

/** GFPGAN is installed and its licence allowed (non-commercial weights: ALLOW_NONCOMMERCIAL_MODELS). */
export function gfpganAvailable(): boolean {
  return isModelUsable(GFPGAN_MODEL)
}

/** Model ids a tool cannot run without (optional upgrades such as ISNet or GFPGAN are not listed). */
export function requiredModelsFor(tool: ToolSlug): string[] {
  return MODELS.filter((m) => !m.optional && m.tools.includes(tool)).map((m) => m.id)
}

/** Threads per session: a worker runs WORKER_CONCURRENCY jobs at once, so their models share the cores. */
export function threadsPerSession(): number {
  return Math.max(1, Math.floor(os.availableParallelism() / Math.max(1, config().workerConcurrency)))
}

/** What a model run answers for one output: the fields of an ort.Tensor that callers read. */
export interface ModelOutput {
  type: ort.Tensor.Type
  data: ort.Tensor.DataType
  dims: readonly number[]
}

export type ModelOutputs = Record<string, ModelOutput>

/** Onnxruntime's settings for every session the server opens (sent to the thread with each open). */
export function sessionOptions(): ort.InferenceSession.SessionOptions {
  return {
    intraOpNumThreads: threadsPerSession(),
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    // No CPU memory arena: onnxruntime's arena grows in doubling chunks to a run's largest tensors and
    // never gives them back, about 380 MB kept by the segmenter and 230 MB by the face detector after
    // one 12 MP run, on top of the peak (docs/decisions/039). Without it a run's tensors are freed
    // when it ends; the model's arithmetic, and so every output, is the same.
    enableCpuMemArena: false,
    // Idle worker threads sleep instead of spinning: on a shared machine spinning steals the cores
    // the other thread (and the rest of the server) needs.
    extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
  }
}

/** A run that failed because its inference thread stopped (an uncaught error, its heap limit, an exit) before answering. */
export class InferenceThreadError extends Error {
  constructor(exitCode: number, reason?: string) {
    super(`The model's inference thread stopped unexpectedly (exit code ${exitCode}${reason ? `: ${reason}` : ''}), so this run failed. The next run starts a new thread.`)
    this.name = 'InferenceThreadError'
  }
}

export const SESSION_RELEASED_MESSAGE = 'This model session was released.'
export const SESSION_LOST_MESSAGE = 'This model was built in memory in an inference thread that has since stopped; open it again.'

const workerScript = () => shippedScript(import.meta.url, 'app/features/tools/models/inference-worker.mjs')

/**
 * The inference threads: config().workerConcurrency of them (at least one), each model pinned to
 * one thread for its life, so a model has one session in the process as before, and models of
 * different jobs can run at the same time. A stopped thread is replaced on its slot's next request.
 */
class InferencePool {
  private readonly slots: (RequestThread | undefined)[]
  private nextSlot = 0
  private opened = 0
  private script: string | undefined

  constructor(size: number) {
    this.slots = new Array(Math.max(1, size)).fill(undefined)
  }

  get size(): number {
    return this.slots.length
  }

  /** The slot a newly opened model is pinned to (round robin). */
  pickSlot(): number {
    const slot = this.nextSlot
    this.nextSlot = (this.nextSlot + 1) % this.slots.length
    return slot
  }

  /** The live thread of a slot, started (or replaced) if needed. */
  thread(slot: number): RequestThread {
    let thread = this.slots[slot]
    if (!thread || thread.dead) {
      this.script ??= workerScript()
      thread = new RequestThread(this.script, (code, reason) => new InferenceThreadError(code, reason))
      this.slots[slot] = thread
    }
    return thread
  }

  /** The running threads (tests make one crash to see it handled). */
  workers(): Worker[] {
    return this.slots.filter((t): t is RequestThread => !!t && !t.dead).map((t) => t.worker)
  }

  /** The slot's thread if it is running (never starts one). */
  running(slot: number): RequestThread | undefined {
    const thread = this.slots[slot]
    return thread && !thread.dead ? thread : undefined
  }

  /**
   * A new session's key in its thread (a file opened twice is two sessions, as before). Counted here,
   * in the process-wide pool, because the server holds two copies of this module (tsx and the Vite
   * bundle) that share the threads.
   */
  sessionKey(label: string): string {
    return `${++this.opened}:${label}`
  }
}

const pool = singleton('inference-pool', () => new InferencePool(config().workerConcurrency))

/** The inference threads' pool (tests and benches look at its workers). */
export function inferencePool(): Pick<InferencePool, 'size' | 'workers'> {
  return pool
}

/**
 * A session in an inference thread. Shaped like the parts of ort.InferenceSession callers use
 * (inputNames, outputNames, release), with run taking one float32 input.
 */
export class ModelSession {
  private released = false

  constructor(
    private readonly slot: number,
    private readonly key: string,
    /** The file, so a replacement thread can reopen it; null for a model built in memory. */
    private readonly file: string | null,
    /** The thread that holds a model built in memory (it cannot be reopened elsewhere). */
    private readonly owner: RequestThread | null,
    readonly inputNames: readonly string[],
    readonly outputNames: readonly string[],
  ) {}

  /** Whether this model was built in memory in a thread that has stopped since (runs would fail). */
  get lost(): boolean {
    return !!this.owner && this.owner.dead
  }

  /**
   * Runs the model on one float32 tensor. The input's buffer is handed to the thread (transferred,
   * not copied) when the array owns all of it: the caller's array is empty afterwards. `fetches`
   * names the outputs wanted (all of them when absent).
   */
  async run(inputName: string, data: Float32Array, dims: readonly number[], fetches?: readonly string[]): Promise<{ outputs: ModelOutputs; ms: number }> {
    if (this.released) throw new Error(SESSION_RELEASED_MESSAGE)
    if (this.lost) throw new Error(SESSION_LOST_MESSAGE)
    const owns = !(data.buffer instanceof SharedArrayBuffer) && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength
    const answer = await pool.thread(this.slot).request(
      { op: 'run', key: this.key, file: this.file, options: this.file ? sessionOptions() : undefined, inputName, data, dims, fetches },
      owns ? [data.buffer as ArrayBuffer] : [],
    )
    return { outputs: answer.outputs as ModelOutputs, ms: answer.ms as number }
  }

  async release(): Promise<void> {
    if (this.released) return
    this.released = true
    // A stopped thread's sessions went with it; none is started just to release.
    const thread = this.owner ?? pool.running(this.slot)
    if (!thread || thread.dead) return
    await thread.request({ op: 'release', key: this.key }).catch(() => undefined)
  }
}

export interface LoadedModel {
  session: ModelSession
  inputName: string
  outputNames: readonly string[]
}

/** Opens a session (from a file or a model built in memory) in an inference thread, with the server's thread settings. */
export async function openSession(model: string | Uint8Array): Promise<LoadedModel> {
  const slot = pool.pickSlot()
  const thread = pool.thread(slot)
  // Bytes are copied, not transferred: callers keep their buffers (blends reuse the models they read).
  const key = pool.sessionKey(typeof model === 'string' ? model : 'memory')
  const answer = await thread.request({ op: 'open', key, source: model, options: sessionOptions() })
  const session = new ModelSession(
    slot,
    key,
    typeof model === 'string' ? model : null,
    typeof model === 'string' ? null : thread,
    answer.inputNames as string[],
    answer.outputNames as string[],
  )
  return { session, inputName: session.inputNames[0], outputNames: session.outputNames }
}

const sessions = singleton('model-sessions', () => new Map<string, Promise<LoadedModel>>())

/**
 * The cached session for a model; throws ModelMissingError when its file is not installed, and
 * ModelLicenceError when its weights are not licensed for commercial use and the operator has not allowed that.
 */
export async function loadModel(id: string): Promise<LoadedModel> {
  const file = modelPath(id)
  if (!isModelInstalled(id)) throw new ModelMissingError(id, modelEntry(id).file)
  if (!licenceAllows(id)) throw new ModelLicenceError(id)
  let pending = sessions.get(file)
  if (!pending) {
    pending = openSession(file)
    // A file that fails to open must not poison the cache: the next run tries again.
    pending.catch(() => sessions.delete(file))
    sessions.set(file, pending)
  }
  return pending
}

/**
 * Runs a model on one float32 NCHW tensor and returns its first output, with the time spent in
 * onnxruntime. `data` is handed to the inference thread: do not read it after the call.
 * A model whose manifest entry promises only its first output (`names: positional`) is asked for
 * that output alone: the code reads nothing else, and a file's side outputs would cross the thread
 * for nothing (IMG.LY's ISNet answers eleven more, 120 MB a run; docs/decisions/160).
 */
export async function runModel(id: string, data: Float32Array, dims: readonly number[]): Promise<{ output: ModelOutput; outputs: ModelOutputs; ms: number }> {
  return runSession(await loadModel(id), data, dims, { firstOutputOnly: modelEntry(id).names === 'positional' })
}

/**
 * Runs an open session on one float32 NCHW tensor and returns its first output (and every output,
 * unless `firstOutputOnly`), with the time spent in onnxruntime. `data` is handed to the inference
 * thread: do not read it after the call.
 */
export async function runSession(
  model: LoadedModel,
  data: Float32Array,
  dims: readonly number[],
  options: { firstOutputOnly?: boolean } = {},
): Promise<{ output: ModelOutput; outputs: ModelOutputs; ms: number }> {
  const first = model.outputNames[0]
  const { outputs, ms } = await model.session.run(model.inputName, data, dims, options.firstOutputOnly ? [first] : undefined)
  return { output: outputs[first], outputs, ms }
}

/** Forgets cached sessions (tests that swap MODELS_DIR). */
export async function releaseModels(): Promise<void> {
  const all = [...sessions.values()]
  sessions.clear()
  for (const pending of all) {
    try {
      await (await pending).session.release()
    } catch {
      // a session that never opened has nothing to release
    }
  }
}
