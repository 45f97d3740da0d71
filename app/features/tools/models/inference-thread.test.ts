// Model runs happen in an inference thread (docs/decisions/070): the main event loop keeps turning
// while a model runs, outputs are the same floats as a run on the calling thread, and a thread that
// stops mid-run fails that run clearly and is replaced for the next one.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import ort from 'onnxruntime-node'
import sharp from 'sharp'
import { describe, expect, it, vi } from 'vitest'
import { loadFixture, requireModels } from './fixtures.test-support'
import { toChwTensor } from './pixels.server'
import {
  inferencePool,
  InferenceThreadError,
  loadModel,
  modelPath,
  openSession,
  runModel,
  runSession,
  SESSION_LOST_MESSAGE,
  sessionOptions,
} from './registry.server'
import { SR_MODEL } from './super-resolution.server'
import { onnxModel } from './tiny-onnx.test-support'

vi.setConfig({ testTimeout: 120_000 })

const SEGMENTER = 'u2netp'
const DETECTOR = 'yunet'

/** A fixture as the float32 NCHW tensor a model takes (values 0..1). */
async function photoTensor(width: number, height: number): Promise<{ data: Float32Array; dims: number[] }> {
  const photo = await loadFixture('portrait-astronaut.png', { width, height })
  const rgb = await sharp(photo.data, { raw: { width, height, channels: 4 } }).removeAlpha().raw().toBuffer()
  return toChwTensor({ data: rgb, width, height, channels: 3 }, { scale: [1 / 255, 1 / 255, 1 / 255], offset: [0, 0, 0] })
}

/** The same model run on this (the calling) thread with the server's session options: the reference. */
async function runHere(id: string, data: Float32Array, dims: number[]): Promise<Record<string, { data: Float32Array; dims: readonly number[] }>> {
  const session = await ort.InferenceSession.create(modelPath(id), sessionOptions())
  try {
    const outputs = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', data, dims) })
    return Object.fromEntries(Object.entries(outputs).map(([name, t]) => [name, { data: t.data as Float32Array, dims: t.dims }]))
  } finally {
    await session.release()
  }
}

const bytesOf = (values: ArrayBufferView) => Buffer.from(values.buffer, values.byteOffset, values.byteLength)

describe('model runs in the inference thread', () => {
  it('give the same floats as a run on the calling thread (segmenter and the detector’s twelve outputs)', async () => {
    requireModels(SEGMENTER, DETECTOR)
    for (const [id, width, height] of [
      [SEGMENTER, 320, 320],
      [DETECTOR, 320, 256],
    ] as const) {
      const { data, dims } = await photoTensor(width, height)
      const reference = await runHere(id, data.slice(), dims)
      const { output, outputs } = await runModel(id, data, dims)
      expect(Object.keys(outputs).sort()).toEqual(Object.keys(reference).sort())
      for (const [name, expected] of Object.entries(reference)) {
        expect(outputs[name].dims).toEqual(expected.dims)
        expect(outputs[name].type).toBe('float32')
        // Bit for bit: the same arithmetic, handed over rather than recomputed or rounded.
        expect(bytesOf(outputs[name].data as Float32Array).equals(bytesOf(expected.data))).toBe(true)
      }
      expect(output).toBe(outputs[(await loadModel(id)).outputNames[0]])
      // The input was handed to the thread, not copied.
      expect(data.byteLength).toBe(0)
    }
  })

  it('leave the main event loop turning while the model runs', async () => {
    requireModels(SR_MODEL)
    await loadModel(SR_MODEL) // opened first, so only the run itself is watched
    const { data, dims } = await photoTensor(160, 160)
    let ticks = 0
    const timer = setInterval(() => ticks++, 1)
    let ticksWhenDone = -1
    try {
      const run = runModel(SR_MODEL, data, dims).then((result) => {
        ticksWhenDone = ticks
        return result
      })
      const { output, ms } = await run
      expect(output.dims).toEqual([1, 3, 640, 640])
      // On the calling thread onnxruntime's run blocks the loop for all of `ms` (one tick at most
      // before it starts); here timers keep firing while the thread computes.
      expect(ms).toBeGreaterThan(0)
      expect(ticksWhenDone).toBeGreaterThanOrEqual(5)
    } finally {
      clearInterval(timer)
    }
  })

  it('fail the run in flight with a clear error when the thread stops, and the next run works in a new thread', async () => {
    requireModels(SR_MODEL)
    const model = await loadModel(SR_MODEL)
    const first = await photoTensor(96, 96)
    const expected = (await runSession(model, first.data.slice(), first.dims)).output.data as Float32Array
    // A model built in memory lives only in the thread that opened it.
    const tiny = await openSession(
      onnxModel({
        nodes: [{ op: 'Relu', inputs: ['input'], outputs: ['output'] }],
        inputs: [{ name: 'input', shape: [1, 1, 1, 2] }],
        outputs: [{ name: 'output', shape: [1, 1, 1, 2] }],
      }),
    )
    expect(Array.from((await runSession(tiny, new Float32Array([-1, 2]), [1, 1, 1, 2])).output.data as Float32Array)).toEqual([0, 2])

    const before = inferencePool().workers()
    expect(before.length).toBeGreaterThan(0)
    // The thread dies (an uncaught error) with a run sent to it and not answered yet.
    for (const worker of before) worker.postMessage({ op: 'crash' })
    const inFlight = runSession(model, first.data.slice(), first.dims)
    await expect(inFlight).rejects.toThrow(InferenceThreadError)
    await expect(inFlight).rejects.toThrow(/inference thread stopped unexpectedly \(exit code 1: thread crash requested\)/)
    await expect(runSession(model, first.data.slice(), first.dims).then(() => 'ran')).resolves.toBe('ran')
    const again = (await runSession(model, first.data.slice(), first.dims)).output.data as Float32Array
    expect(bytesOf(again).equals(bytesOf(expected))).toBe(true)
    expect(inferencePool().workers().some((w) => before.includes(w))).toBe(false)

    expect(tiny.session.lost).toBe(true)
    await expect(runSession(tiny, new Float32Array([-1, 2]), [1, 1, 1, 2])).rejects.toThrow(SESSION_LOST_MESSAGE)
  })

  it('say what happened in the error a stopped thread gives', () => {
    expect(new InferenceThreadError(1).message).toBe(
      "The model's inference thread stopped unexpectedly (exit code 1), so this run failed. The next run starts a new thread.",
    )
  })

  it('do not keep a script alive once its runs are over', () => {
    requireModels(DETECTOR)
    // A plain script that runs a model and then simply ends: it must exit by itself, with the
    // (idle) thread and its open session still there.
    const script = [
      "const { runModel } = await import('./app/features/tools/models/registry.server.ts')",
      "const { output } = await runModel('yunet', new Float32Array(3 * 32 * 32), [1, 3, 32, 32])",
      'console.log(JSON.stringify(output.dims))',
    ].join('\n')
    const root = path.resolve(__dirname, '../../../..')
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'test' },
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(child.error).toBeUndefined()
    expect(child.status).toBe(0)
    expect(child.stdout.trim()).toBe('[1,16,1]') // cls_8 of a 32-px input
  })
})
