// What running a model in the inference thread costs against running it on the calling thread, as
// every run did before docs/decisions/070: the same model, options and input, runs interleaved
// (here, thread, here, thread ...) so the machine's load drifts over both alike. Times are the
// caller's wall clock around one run, transfer and wake-ups included.
// Run: npx tsx bench/inference-overhead.ts [model id, default u2netp] [size, default 320] [runs, default 12]
import ort from 'onnxruntime-node'
import { loadModel, modelPath, runModel, sessionOptions } from '../app/features/tools/models/registry.server'
import { runAsScript } from './support'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const round = (v: number) => Math.round(v * 10) / 10

export async function benchInferenceOverhead(id = 'u2netp', size = 320, runs = 12): Promise<Record<string, unknown>> {
  const dims = [1, 3, size, size]
  const input = () => {
    const data = new Float32Array(3 * size * size)
    for (let i = 0; i < data.length; i++) data[i] = ((i * 2654435761) % 1000) / 1000
    return data
  }
  const here = await ort.InferenceSession.create(modelPath(id), sessionOptions())
  await loadModel(id)
  // Warm-up: first runs pay one-time costs on both sides.
  await here.run({ [here.inputNames[0]]: new ort.Tensor('float32', input(), dims) })
  await runModel(id, input(), dims)
  const onCaller: number[] = []
  const inThread: number[] = []
  /** onnxruntime's own time inside the thread (the rest of inThread is hand-over and wake-ups). */
  const inThreadRun: number[] = []
  for (let r = 0; r < runs; r++) {
    let data = input()
    let started = performance.now()
    await here.run({ [here.inputNames[0]]: new ort.Tensor('float32', data, dims) })
    onCaller.push(performance.now() - started)
    data = input()
    started = performance.now()
    const { ms } = await runModel(id, data, dims)
    inThread.push(performance.now() - started)
    inThreadRun.push(ms)
  }
  await here.release()
  return {
    model: id,
    input: dims.join('x'),
    runs,
    callerThreadP50Ms: round(median(onCaller)),
    inferenceThreadP50Ms: round(median(inThread)),
    insideThreadRunP50Ms: round(median(inThreadRun)),
    // Each run against its neighbour on the caller's thread: the load changes little within a pair.
    pairedRatioP50: Math.round(median(inThread.map((ms, i) => ms / onCaller[i])) * 1000) / 1000,
    callerThreadMs: onCaller.map(round),
    inferenceThreadMs: inThread.map(round),
  }
}

runAsScript(import.meta.url, () => {
  const [id, size, runs] = process.argv.slice(2)
  return benchInferenceOverhead(id, size ? Number(size) : undefined, runs ? Number(runs) : undefined)
})
