import { describe, expect, it } from 'vitest'
import { BLUR, MEGABYTE, TOOLS } from '~/features/tools/catalog'
import { appliedColour, backgroundField, cutoutFilename, isHexColour } from './background-colour'
import { blurRadiusText, displayBlur, facesDetectedText, normaliseBlur, sourceText } from './blur-wording'
import { filenameFromContentDisposition } from './content-disposition'
import { checkFile, formatMegabytes } from './file-checks'
import { statusLabel } from './status-badge'
import { stagePlan, uploadStage, waitingStage } from './stages'
import { convertedFilename, formatPreviewLabel, svgBackgroundField } from './svg-options'
import { failureMessage, remainingFrom, TOOL_MESSAGES } from './tool-messages'

describe('file checks', () => {
  it('refuses a type the tool does not accept', () => {
    expect(checkFile(TOOLS['background-remover'], { type: 'image/gif', size: 10 })).toBe('Invalid file type')
    expect(checkFile(TOOLS['background-remover'], { type: 'image/tiff', size: 10 })).toBe('Invalid file type')
    expect(checkFile(TOOLS['face-restorer'], { type: 'image/tiff', size: 10 })).toBeNull()
    expect(checkFile(TOOLS['svg-converter'], { type: 'image/png', size: 10 })).toBe('Invalid file type')
    expect(checkFile(TOOLS['svg-converter'], { type: 'image/svg+xml', size: 10 })).toBeNull()
  })

  it("names each tool's own limit and allows a file exactly at it", () => {
    const cases: Array<[keyof typeof TOOLS, string, number]> = [
      ['background-remover', 'image/png', 12],
      ['face-restorer', 'image/jpeg', 18],
      ['face-blurrer', 'image/webp', 15],
      ['svg-converter', 'image/svg+xml', 20],
      ['image-enhancer', 'image/png', 20],
    ]
    for (const [slug, type, mb] of cases) {
      expect(checkFile(TOOLS[slug], { type, size: mb * MEGABYTE })).toBeNull()
      expect(checkFile(TOOLS[slug], { type, size: mb * MEGABYTE + 1 })).toBe(`File too large (max ${mb}MB)`)
    }
  })

  it('shows sizes in MB with two decimals', () => {
    expect(formatMegabytes(2.5 * MEGABYTE)).toBe('2.50 MB')
    expect(formatMegabytes(100)).toBe('<0.01 MB')
    expect(formatMegabytes(0)).toBe('0.00 MB')
  })
})

describe('background colour', () => {
  it('applies a custom colour only as 3- or 6-digit hex with a leading #', () => {
    expect(appliedColour({ mode: 'custom', value: '#abc' })).toBe('#abc')
    expect(appliedColour({ mode: 'custom', value: '#A1B2C3' })).toBe('#a1b2c3')
    for (const bad of ['abc', '#abcd', '#12345', '#gggggg', 'red', '', '#1234567']) {
      expect(appliedColour({ mode: 'custom', value: bad })).toBeNull()
      expect(isHexColour(bad)).toBe(false)
    }
  })

  it('uses presets as they are and nothing for transparent', () => {
    expect(appliedColour({ mode: 'preset', preset: 'white' })).toBe('white')
    expect(appliedColour({ mode: 'preset', preset: '#f472b6' })).toBe('#f472b6')
    expect(appliedColour({ mode: 'transparent' })).toBeNull()
    expect(backgroundField({ mode: 'transparent' })).toBe('')
    expect(backgroundField({ mode: 'custom', value: '#fff' })).toBe('#fff')
  })

  it('names the coloured download after a hex colour, else cutout.png', () => {
    expect(cutoutFilename('#F472B6')).toBe('cutout-f472b6.png')
    expect(cutoutFilename('#abc')).toBe('cutout-abc.png')
    expect(cutoutFilename('white')).toBe('cutout.png')
    expect(cutoutFilename('black')).toBe('cutout.png')
  })
})

describe('progress stages', () => {
  const remover = stagePlan(TOOLS['background-remover'].steps)

  it('scales the first step by the real upload progress', () => {
    expect(uploadStage(remover, 0)).toEqual({ percent: 0, message: 'Uploading image' })
    expect(uploadStage(remover, 0.5)).toEqual({ percent: 6, message: 'Uploading image' })
    expect(uploadStage(remover, 1)).toEqual({ percent: 12, message: 'Uploading image' })
    expect(uploadStage(remover, 7)).toEqual({ percent: 12, message: 'Uploading image' })
    expect(uploadStage(remover, Number.NaN).percent).toBe(0)
  })

  it('walks the middle steps and never reaches 100 while waiting', () => {
    const restorer = stagePlan(TOOLS['face-restorer'].steps)
    expect([0, 1, 2, 3, 50].map((t) => waitingStage(restorer, t))).toEqual([
      { percent: 35, message: 'Rebuilding texture detail' },
      { percent: 68, message: 'Recovering light + contrast' },
      { percent: 85, message: 'Polishing final portrait' },
      { percent: 85, message: 'Polishing final portrait' },
      { percent: 85, message: 'Polishing final portrait' },
    ])
    expect(restorer.done).toEqual({ percent: 100, message: 'Portrait ready' })
    expect(waitingStage(remover, 9)).toEqual({ percent: 70, message: 'Generating cutout' })
  })

  it("appends a tool's extra waiting texts after its table steps", () => {
    const blurrer = stagePlan(TOOLS['face-blurrer'].steps, [{ percent: 55, message: 'Scrubbing metadata & EXIF' }])
    expect(waitingStage(blurrer, 0).message).toBe('Detecting faces')
    expect(waitingStage(blurrer, 1).message).toBe('Rendering blur shields')
    expect(waitingStage(blurrer, 2).message).toBe('Scrubbing metadata & EXIF')
    expect(blurrer.done).toEqual({ percent: 100, message: 'Anonymization sealed' })
  })
})

describe('content disposition', () => {
  it('prefers the UTF-8 form and strips folders', () => {
    expect(filenameFromContentDisposition(`attachment; filename="caf_.png"; filename*=UTF-8''caf%C3%A9.png`)).toBe('café.png')
    expect(filenameFromContentDisposition('attachment; filename="logo.webp"')).toBe('logo.webp')
    expect(filenameFromContentDisposition('attachment; filename=plain.png')).toBe('plain.png')
    expect(filenameFromContentDisposition('attachment; filename="../../etc/x.png"')).toBe('x.png')
    expect(filenameFromContentDisposition(`attachment; filename="ok.png"; filename*=UTF-8''%E0%A4%A.png`)).toBe('ok.png')
    expect(filenameFromContentDisposition('attachment')).toBeNull()
    expect(filenameFromContentDisposition(null)).toBeNull()
  })
})

describe('face blurrer wording', () => {
  it('words the tiles as the spec does', () => {
    expect(facesDetectedText(null)).toBe('Pending')
    expect(facesDetectedText(0)).toBe('0 faces')
    expect(facesDetectedText(1)).toBe('1 face')
    expect(facesDetectedText(8)).toBe('8 faces')
    expect(sourceText(true)).toBe('Live upload')
    expect(sourceText(false)).toBe('No image yet')
    expect(blurRadiusText(32, 'applied')).toBe('32px applied')
    expect(blurRadiusText(40, 'preview')).toBe('40px preview')
    expect(blurRadiusText(40, 'none')).toBe('—')
  })

  it('never shows the radius below 8 and snaps submitted values to the slider', () => {
    expect(displayBlur(2)).toBe(BLUR.displayMin)
    expect(displayBlur(12)).toBe(12)
    expect(normaliseBlur('33')).toBe(34)
    expect(normaliseBlur(5)).toBe(12)
    expect(normaliseBlur(99)).toBe(60)
    expect(normaliseBlur('nope')).toBe(32)
  })
})

describe('SVG options', () => {
  it('sends a background only when transparency is off, empty meaning #ffffff', () => {
    expect(svgBackgroundField(true, '#000')).toBeNull()
    expect(svgBackgroundField(false, '  ')).toBe('#ffffff')
    expect(svgBackgroundField(false, 'navy')).toBe('navy')
  })

  it("downloads under the server's name, else converted.{format}", () => {
    expect(convertedFilename('logo.webp', 'webp')).toBe('logo.webp')
    expect(convertedFilename(null, 'jpeg')).toBe('converted.jpeg')
    expect(formatPreviewLabel('webp')).toBe('WEBP preview')
  })

  it('names its statuses queued, processing and ready', () => {
    expect(statusLabel('svg-converter', 'ready')).toBe('queued')
    expect(statusLabel('svg-converter', 'processing')).toBe('processing')
    expect(statusLabel('svg-converter', 'complete')).toBe('ready')
    expect(statusLabel('face-blurrer', 'complete')).toBe('Complete')
  })
})

describe('failure messages', () => {
  it("uses the server's error, then detail, then the tool's default", () => {
    const fallback = TOOL_MESSAGES['background-remover'].defaultError
    expect(fallback).toBe('Unable to process image.')
    expect(failureMessage({ error: 'Not enough credits.' }, fallback)).toBe('Not enough credits.')
    expect(failureMessage({ detail: 'Too big.' }, fallback)).toBe('Too big.')
    expect(failureMessage({ error: '' }, fallback)).toBe(fallback)
    expect(failureMessage(null, fallback)).toBe(fallback)
  })

  it('reads remaining credits from numbers and digit strings only', () => {
    expect(remainingFrom(3)).toBe(3)
    expect(remainingFrom('4')).toBe(4)
    expect(remainingFrom(null)).toBeNull()
    expect(remainingFrom('x')).toBeNull()
    expect(remainingFrom('-1')).toBeNull()
  })
})
