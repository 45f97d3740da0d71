// Which model files exist, which tool needs which, and the one place that opens sessions.
// Sessions are created once per process (singleton) and reused by every run.
import { existsSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import ort from 'onnxruntime-node'
import { config } from '~/config.server'
import { singleton } from '~/utils/singleton.server'
import type { ToolSlug } from '../catalog'
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

export async function modelStatus(): Promise<
  Array<{ id: string; file: string; installed: boolean; optional: boolean; license: string }>
> {
  return MODELS.map((m) => ({
    id: m.id,
    file: m.file,
    installed: isModelInstalled(m.id),
    optional: m.optional,
    license: m.license,
  }))
}

/** The face restorer's optional model: without it the restorer runs in Fallback detail mode. */
export const GFPGAN_MODEL = 'gfpgan'

export function gfpganAvailable(): boolean {
  return isModelInstalled(GFPGAN_MODEL)
}

/** Model ids a tool cannot run without (optional upgrades such as ISNet or GFPGAN are not listed). */
export function requiredModelsFor(tool: ToolSlug): string[] {
  return MODELS.filter((m) => !m.optional && m.tools.includes(tool)).map((m) => m.id)
}

/** Threads per session: a worker runs WORKER_CONCURRENCY jobs at once, so their models share the cores. */
export function threadsPerSession(): number {
  return Math.max(1, Math.floor(os.availableParallelism() / Math.max(1, config().workerConcurrency)))
}

export interface LoadedModel {
  session: ort.InferenceSession
  inputName: string
  outputNames: readonly string[]
}

/** Opens a session (from a file or a model built in memory) with the server's thread settings. */
export async function openSession(model: string | Uint8Array): Promise<LoadedModel> {
  const options: ort.InferenceSession.SessionOptions = {
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
  // Two calls because create's overloads take a path or bytes, not a union of both.
  const session = typeof model === 'string' ? await ort.InferenceSession.create(model, options) : await ort.InferenceSession.create(model, options)
  return { session, inputName: session.inputNames[0], outputNames: session.outputNames }
}

const sessions = singleton('model-sessions', () => new Map<string, Promise<LoadedModel>>())

/** The cached session for a model; throws ModelMissingError when its file is not installed. */
export async function loadModel(id: string): Promise<LoadedModel> {
  const file = modelPath(id)
  if (!isModelInstalled(id)) throw new ModelMissingError(id, modelEntry(id).file)
  let pending = sessions.get(file)
  if (!pending) {
    pending = openSession(file)
    // A file that fails to open must not poison the cache: the next run tries again.
    pending.catch(() => sessions.delete(file))
    sessions.set(file, pending)
  }
  return pending
}

/** Runs a model on one float32 NCHW tensor and returns its first output, with the time spent. */
export async function runModel(
  id: string,
  data: Float32Array,
  dims: readonly number[],
): Promise<{ output: ort.Tensor; outputs: ort.InferenceSession.OnnxValueMapType; ms: number }> {
  return runSession(await loadModel(id), data, dims)
}

/** Runs an open session on one float32 NCHW tensor and returns its first output, with the time spent. */
export async function runSession(
  model: LoadedModel,
  data: Float32Array,
  dims: readonly number[],
): Promise<{ output: ort.Tensor; outputs: ort.InferenceSession.OnnxValueMapType; ms: number }> {
  const started = performance.now()
  const outputs = await model.session.run({ [model.inputName]: new ort.Tensor('float32', data, dims) })
  const ms = performance.now() - started
  return { output: outputs[model.outputNames[0]] as ort.Tensor, outputs, ms }
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
