// The quality bench's --model-file: a file recognised by its signature (IMG.LY's ISNet reference, a
// manifest model, an ambiguous or unknown one refused with what to do), the reference's pre- and
// post-processing, the file run by the remover from its slot, the halo measure, and the bench's
// command-line settings. Nothing here needs the AGPL file: its signature is written out, and tiny
// ONNX stand-ins play the files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { config } from '../app/config.server'
import { removeBackground } from '../app/features/tools/background-remover.server'
import { toChwTensor } from '../app/features/tools/models/pixels.server'
import { BIREFNET_LITE, ISNET, MODNET, outputToMatte, U2NETP } from '../app/features/tools/models/segmenters.server'
import { channelMeanOnnxModel } from '../app/features/tools/models/tiny-onnx.test-support'
import type { FileSignature } from '../app/features/tools/models/verify.server'
import { argument, levelsArgument, textArgument } from './quality'
import { haloOf, IMGLY_ISNET, IMGLY_ISNET_SIGNATURE, ModelFileError, readModelSignature, recogniseModelFile, useModelFile } from './quality-model-file'

const scratch = mkdtempSync(path.join(os.tmpdir(), 'facet-model-file-test-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const float = (name: string, shape: Array<number | string>) => ({ name, type: 'float32', shape })
/** A file with one input and one output. */
const single = (input: Array<number | string>, output: Array<number | string>, names = ['input_image', 'output_image']): FileSignature => ({
  inputs: [float(names[0], input)],
  outputs: [float(names[1], output)],
})

describe('recognising a model file by its signature', () => {
  it("IMG.LY's ISNet is its reference description: px/256 − 0.5, the sigmoid output read as alpha, in ISNet's slot", () => {
    const segmenter = recogniseModelFile(IMGLY_ISNET_SIGNATURE)
    expect(segmenter).toBe(IMGLY_ISNET)
    expect(segmenter.id).toBe(ISNET.id)
    expect(segmenter.inputSize(640, 480)).toEqual({ width: 1024, height: 1024 })
    // Whatever the picture's brightest byte (rembg's ISNet divides by it; IMG.LY's library does not).
    const { data } = toChwTensor({ data: Buffer.from([0, 128, 255]), width: 1, height: 1, channels: 3 }, segmenter.normalise(200))
    expect([...data]).toEqual([-0.5, 0, 255 / 256 - 0.5])
    // Alpha as it comes, never stretched: a faint matte stays faint.
    expect([...outputToMatte(new Float32Array([0.1, 0.4]), segmenter.output)]).toEqual([26, 102])
  })

  it('--model-id runs the same file with a manifest description instead (the studio\'s own ISNet path)', () => {
    expect(recogniseModelFile(IMGLY_ISNET_SIGNATURE, 'isnet-general-use')).toBe(ISNET)
  })

  it('a manifest signature is recognised: U²-Netp at 320², MODNet at any size (not the fixed 1024² models it also fits)', () => {
    expect(recogniseModelFile(single([1, 3, 320, 320], [1, 1, 320, 320], ['input', 'd0']))).toBe(U2NETP)
    expect(recogniseModelFile(single(['batch', 3, 'height', 'width'], ['batch', 1, 'height', 'width'], ['input', 'output']))).toBe(MODNET)
  })

  it('ISNet and BiRefNet-lite have the same signature: the file is refused until --model-id says which', () => {
    const rembg = single([1, 3, 1024, 1024], [1, 1, 1024, 1024])
    expect(() => recogniseModelFile(rembg)).toThrow(
      new ModelFileError(
        "The file's signature (input_image float32[1,3,1024,1024] → output_image float32[1,1,1024,1024]) fits BiRefNet-lite and ISNet general-use alike: say which with --model-id birefnet-lite or --model-id isnet-general-use.",
      ),
    )
    expect(recogniseModelFile(rembg, 'birefnet-lite')).toBe(BIREFNET_LITE)
    expect(recogniseModelFile(rembg, 'isnet-general-use')).toBe(ISNET)
  })

  it("a file with the reference's input and first output but not all its outputs is not taken for the reference", () => {
    const partial: FileSignature = { inputs: IMGLY_ISNET_SIGNATURE.inputs, outputs: IMGLY_ISNET_SIGNATURE.outputs.slice(0, 1) }
    expect(() => recogniseModelFile(partial)).toThrow(/fits BiRefNet-lite and ISNet general-use alike/)
  })

  it('an unknown signature is refused, saying what it is and what the bench knows', () => {
    const enhancer = single([1, 3, 'height', 'width'], [1, 3, 'height_x4', 'width_x4'], ['input', 'output'])
    expect(() => recogniseModelFile(enhancer)).toThrow(
      'Unknown model signature input float32[1,3,height,width] → output float32[1,3,height_x4,width_x4]: it fits no background model of models/manifest.json (birefnet-lite, isnet-general-use, u2netp, modnet) nor IMG.LY\'s ISNet reference.',
    )
  })

  it('--model-id must name a background model whose signature the file fits', () => {
    expect(() => recogniseModelFile(IMGLY_ISNET_SIGNATURE, 'yunet')).toThrow('--model-id yunet: not a background model; choose one of birefnet-lite, isnet-general-use, u2netp, modnet.')
    expect(() => recogniseModelFile(IMGLY_ISNET_SIGNATURE, 'u2netp')).toThrow(
      /^--model-id u2netp: the file \(input float32\[1,3,1024,1024\] → output float32\[1,1,1024,1024\] \(\+11 more outputs\)\) does not fit U²-Netp's signature: input input float32\[1,3,1024,1024\]: expected shape \[1,3,320,320\]/,
    )
  })
})

describe('reading a file', () => {
  it("reads the signature onnxruntime reports; a missing file or one that is not a model is refused with the reason", async () => {
    const file = path.join(scratch, 'stand-in.onnx')
    writeFileSync(file, channelMeanOnnxModel(1024))
    expect(await readModelSignature(file)).toMatchObject(single([1, 3, 1024, 1024], [1, 1, 1024, 1024], ['input', 'output']))
    await expect(readModelSignature(path.join(scratch, 'absent.onnx'))).rejects.toThrow(`--model-file ${path.join(scratch, 'absent.onnx')}: no such file.`)
    const text = path.join(scratch, 'notes.onnx')
    writeFileSync(text, 'not a model')
    await expect(readModelSignature(text)).rejects.toThrow(/: onnxruntime cannot load it: /)
  })

  it("puts the file in its slot beside U²-Netp: the remover runs it there, and MODELS_DIR comes back after", async () => {
    const before = config().modelsDir
    const file = path.join(scratch, 'isnet-stand-in.onnx')
    writeFileSync(file, channelMeanOnnxModel(1024))
    const underTest = await useModelFile(file, 'isnet-general-use')
    try {
      expect(underTest.segmenters).toEqual([U2NETP, ISNET])
      expect(config().modelsDir).not.toBe(before)
      // A bright square on black: the stand-in answers the channels' mean, so the square is kept and the black cut.
      const width = 64
      const data = Buffer.alloc(width * width * 4)
      for (let p = 0; p < width * width; p++) {
        const inside = p % width >= 16 && p % width < 48 && Math.floor(p / width) >= 16 && Math.floor(p / width) < 48
        data.fill(inside ? 240 : 0, p * 4, p * 4 + 3)
        data[p * 4 + 3] = 255
      }
      const out = await removeBackground({ data, width, height: width }, { segmenter: ISNET, refinement: 'model', matteOnly: true })
      expect(out.model).toBe('isnet-general-use')
      // The resize's ringing at the square's edge holds the stretched maximum, so the middle is just under it.
      expect(out.alpha[32 * width + 32]).toBeGreaterThan(230)
      expect(out.alpha[2 * width + 2]).toBe(0)
    } finally {
      await underTest.restore()
    }
    expect(config().modelsDir).toBe(before)
  })

  it('a U²-Netp file is refused: the bench runs U²-Netp already', async () => {
    const file = path.join(scratch, 'u2netp-like.onnx')
    writeFileSync(file, channelMeanOnnxModel(320))
    await expect(useModelFile(file)).rejects.toThrow(/it is a U²-Netp, which the bench runs already/)
  })
})

describe('the halo', () => {
  it('is the alpha kept just outside the true edge: none for an exact cutout, the rim for a cutout one pixel too wide', () => {
    const width = 20
    const square = (from: number, to: number) => Uint8Array.from({ length: width * width }, (_, p) => (p % width >= from && p % width < to && Math.floor(p / width) >= from && Math.floor(p / width) < to ? 255 : 0))
    const truth = square(5, 15)
    expect(haloOf(truth, truth, width, width)).toEqual({ meanAlpha: 0, pixels: 0 })
    const wide = haloOf(truth, square(4, 16), width, width)
    // The rim: 12² − 10² = 44 pixels outside the truth, all of them within the halo's reach.
    expect(wide.pixels).toBe(44)
    expect(wide.meanAlpha).toBeGreaterThan(0)
    expect(wide.meanAlpha).toBeLessThan(1)
  })
})

describe("the bench's command line", () => {
  const argv = (...args: string[]) => ['node', 'bench/run.ts', 'quality', ...args]

  it('--model-file and --model-id take a value; absent, they are undefined', () => {
    expect(textArgument('model-file', argv('--count', '20', '--model-file', '/tmp/isnet-ref/isnet-medium.onnx'))).toBe('/tmp/isnet-ref/isnet-medium.onnx')
    expect(textArgument('model-id', argv('--count', '20'))).toBeUndefined()
    expect(() => textArgument('model-file', argv('--model-file'))).toThrow('--model-file takes a value')
    expect(() => textArgument('model-file', argv('--model-file', '--count', '20'))).toThrow('--model-file takes a value')
  })

  it('--count and --seed take whole numbers', () => {
    expect(argument('count', 200, argv('--count', '20'))).toBe(20)
    expect(argument('count', 200, argv())).toBe(200)
    expect(() => argument('count', 200, argv('--count', 'ten'))).toThrow('--count takes a whole number')
  })

  it('--levels picks refinement levels, classic among them (the times\' baseline); every level by default', () => {
    expect(levelsArgument(argv())).toEqual(['model', 'classic', 'guided', 'edges', 'sampled'])
    expect(levelsArgument(argv('--levels', 'model,classic,sampled'))).toEqual(['model', 'classic', 'sampled'])
    expect(() => levelsArgument(argv('--levels', 'model,sampled'))).toThrow(/^--levels takes refinement levels separated by commas, classic among them/)
    expect(() => levelsArgument(argv('--levels', 'classic,sharp'))).toThrow(/^--levels takes/)
  })
})
