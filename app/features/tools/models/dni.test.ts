import { readFileSync } from 'node:fs'
import sharp from 'sharp'
import { describe, expect, it, vi } from 'vitest'
import { WDN_MODEL } from './denoise-models.server'
import { blendModels, floatInitializers, ModelBlendError } from './dni.server'
import { loadFixture, requireModels } from './fixtures.test-support'
import { modelPath, openSession, runSession } from './registry.server'
import { SR_MODEL } from './super-resolution.server'
import { onnxModel, type TinyInitializer } from './tiny-onnx.test-support'

vi.setConfig({ testTimeout: 120_000 })

/** [1,3,2,2] → [1,1,2,2]: a 1×1 convolution with the given weights and a bias. */
function convModel(weights: number[], bias: number, names = { weight: 'weight', bias: 'bias' }, dims = [1, 3, 1, 1]): Buffer {
  const initializers: TinyInitializer[] = [
    { name: names.weight, dims, values: weights },
    { name: names.bias, dims: [1], values: [bias] },
  ]
  return onnxModel({
    nodes: [{ op: 'Conv', inputs: ['input', names.weight, names.bias], outputs: ['output'] }],
    inputs: [{ name: 'input', shape: [1, 3, 2, 2] }],
    outputs: [{ name: 'output', shape: [1, 1, 2, 2] }],
    initializers,
  })
}

/** Each float initializer's values, by name. */
function initializerValues(model: Buffer): Record<string, number[]> {
  const view = new DataView(model.buffer, model.byteOffset, model.byteLength)
  const values: Record<string, number[]> = {}
  for (const tensor of floatInitializers(model)) {
    values[tensor.name] = []
    for (const s of tensor.segments) for (let at = s.start; at < s.end; at += 4) values[tensor.name].push(view.getFloat32(at, true))
  }
  return values
}

describe('blendModels on hand-written models', () => {
  const a = convModel([1, 2, 3], 10)
  const b = convModel([5, -2, 0.5], -6)

  it('finds the float initializers with their names and shapes', () => {
    const tensors = floatInitializers(a)
    expect(tensors.map((t) => [t.name, t.dims, t.length])).toEqual([
      ['weight', [1, 3, 1, 1], 3],
      ['bias', [1], 1],
    ])
  })

  it('writes weight·a + (1−weight)·b into a copy of a of the same length, and the result runs', async () => {
    const blended = blendModels(a, b, 0.25)
    expect(blended.byteLength).toBe(a.byteLength)
    expect(initializerValues(blended)).toEqual({
      weight: [0.25 * 1 + 0.75 * 5, 0.25 * 2 + 0.75 * -2, 0.25 * 3 + 0.75 * 0.5],
      bias: [0.25 * 10 + 0.75 * -6],
    })
    // The inputs are left as they were.
    expect(initializerValues(a)).toEqual({ weight: [1, 2, 3], bias: [10] })

    const model = await openSession(blended)
    const pixel = [1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4]
    const { output } = await runSession(model, new Float32Array(pixel), [1, 3, 2, 2])
    const [w0, w1, w2, bias] = [4, -1, 1.125, -2]
    expect(Array.from(output.data as Float32Array)).toEqual([1, 1, 1, 1].map(() => w0 * 1 + w1 * 2 + w2 * 4 + bias))
    await model.session.release()
  })

  it('gives back model a at weight 1 and model b’s weights at weight 0', () => {
    expect(blendModels(a, b, 1).equals(a)).toBe(true)
    expect(initializerValues(blendModels(a, b, 0))).toEqual(initializerValues(b))
  })

  it('refuses models that are not the same network, saying why', () => {
    const renamed = convModel([5, -2, 0.5], -6, { weight: 'other', bias: 'bias' })
    expect(() => blendModels(a, renamed, 0.5, { a: 'general', b: 'wdn' })).toThrow(new ModelBlendError('wdn has no initializer "weight": the two models are not the same network.'))
    const reshaped = convModel([5, -2, 0.5], -6, undefined, [1, 1, 1, 3])
    expect(() => blendModels(a, reshaped, 0.5)).toThrow(/Initializer "weight" is \[1, 3, 1, 1\] in model A but \[1, 1, 1, 3\] in model B/)
    const fewer = onnxModel({
      nodes: [{ op: 'Conv', inputs: ['input', 'weight'], outputs: ['output'] }],
      inputs: [{ name: 'input', shape: [1, 3, 2, 2] }],
      outputs: [{ name: 'output', shape: [1, 1, 2, 2] }],
      initializers: [{ name: 'weight', dims: [1, 3, 1, 1], values: [1, 1, 1] }],
    })
    expect(() => blendModels(a, fewer, 0.5)).toThrow(/model A has 2 float initializers and model B has 1/)
  })

  it('refuses a corrupted or truncated file with a ModelBlendError, not a crash or a silent copy', () => {
    const truncated = a.subarray(0, a.byteLength - 7)
    expect(() => blendModels(a, truncated, 0.5, { a: 'general', b: 'wdn' })).toThrow(ModelBlendError)
    expect(() => blendModels(a, truncated, 0.5, { a: 'general', b: 'wdn' })).toThrow(/^wdn: the model file is truncated or corrupt/)
    const garbage = Buffer.from('this is not an onnx model at all, just text')
    expect(() => blendModels(garbage, b, 0.5)).toThrow(ModelBlendError)
    expect(() => floatInitializers(Buffer.alloc(0))).toThrow(new ModelBlendError('model: the file has no ONNX graph.'))
    expect(() => blendModels(a, b, 1.5)).toThrow(RangeError)
  })
})

describe('blendModels on Real-ESRGAN general and wdn', () => {
  it('at d=1 runs like general, at d=0 like wdn, and at d=0.5 lies between them', async () => {
    requireModels(SR_MODEL, WDN_MODEL)
    const general = readFileSync(modelPath(SR_MODEL))
    const wdn = readFileSync(modelPath(WDN_MODEL))
    // Same network, other weights: the premise of blending.
    expect(floatInitializers(general).length).toBe(floatInitializers(wdn).length)

    const cat = await loadFixture('noface-cat-chelsea.png', { width: 40, height: 32 })
    const rgb = await sharp(cat.data, { raw: { width: cat.width, height: cat.height, channels: 4 } }).removeAlpha().raw().toBuffer()
    const plane = cat.width * cat.height
    const input = new Float32Array(3 * plane)
    for (let p = 0; p < plane; p++) for (let k = 0; k < 3; k++) input[k * plane + p] = rgb[p * 3 + k] / 255
    const dims = [1, 3, cat.height, cat.width]

    const run = async (model: Uint8Array) => {
      const loaded = await openSession(model)
      try {
        // A copy: the run hands its input over to the inference thread, and every model here gets the same one.
        return (await runSession(loaded, input.slice(), dims)).output.data as Float32Array
      } finally {
        await loaded.session.release()
      }
    }
    const meanDiff = (x: Float32Array, y: Float32Array) => {
      let sum = 0
      for (let i = 0; i < x.length; i++) sum += Math.abs(x[i] - y[i])
      return sum / x.length
    }
    const maxDiff = (x: Float32Array, y: Float32Array) => {
      let worst = 0
      for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i] - y[i]))
      return worst
    }

    const outGeneral = await run(general)
    const outWdn = await run(wdn)
    const outOne = await run(blendModels(general, wdn, 1))
    const outZero = await run(blendModels(general, wdn, 0))
    const outHalf = await run(blendModels(general, wdn, 0.5))

    const apart = meanDiff(outGeneral, outWdn)
    expect(apart).toBeGreaterThan(0.002) // the two models really differ on this tile
    expect(maxDiff(outOne, outGeneral)).toBeLessThan(1e-4)
    expect(maxDiff(outZero, outWdn)).toBeLessThan(1e-4)
    const toGeneral = meanDiff(outHalf, outGeneral)
    const toWdn = meanDiff(outHalf, outWdn)
    expect(toGeneral).toBeLessThan(apart * 0.85)
    expect(toWdn).toBeLessThan(apart * 0.85)
    expect(toGeneral).toBeGreaterThan(apart * 0.2)
    expect(toWdn).toBeGreaterThan(apart * 0.2)
  })
})
