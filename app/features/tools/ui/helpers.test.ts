import { describe, expect, it } from 'vitest'
import { BLUR, MEGABYTE, TOOLS } from '~/catalog/tools'
import { appliedColour, backgroundField, cutoutFilename, isHexColour } from './background-colour'
import { blurRadiusText, displayBlur, facesDetectedText, normaliseBlur, sourceText } from './blur-wording'
import { filenameFromContentDisposition } from './content-disposition'
import { checkFile, formatMegabytes } from './file-checks'
import { statusLabel } from './status-badge'
import { progressOnSteps } from '../../jobs/progress'
import { stagePlan, uploadStage } from './stages'
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

  it('maps the work done onto the middle steps, never 100 before the answer', () => {
    const restorer = TOOLS['face-restorer'].steps
    expect(progressOnSteps(restorer, 0)).toEqual({ percent: 12, message: 'Rebuilding texture detail' })
    expect(progressOnSteps(restorer, 0.5)).toEqual({ percent: 49, message: 'Recovering light + contrast' })
    expect(progressOnSteps(restorer, 1)).toEqual({ percent: 85, message: 'Polishing final portrait' })
    expect(progressOnSteps(restorer, 7).percent).toBe(85)
    expect(progressOnSteps(TOOLS['background-remover'].steps, 0.5)).toEqual({ percent: 41, message: 'Generating cutout' })
    expect(stagePlan(restorer).done).toEqual({ percent: 100, message: 'Portrait ready' })
  })

  it('keeps a stage the runner names, within that stage\'s band', () => {
    const blurrer = TOOLS['face-blurrer'].steps
    expect(progressOnSteps(blurrer, 0.9, 'Detecting faces')).toEqual({ percent: 35, message: 'Detecting faces' })
    expect(progressOnSteps(blurrer, 0.1, 'Rendering blur shields')).toEqual({ percent: 35, message: 'Rendering blur shields' })
    expect(progressOnSteps(blurrer, 0.5, 'not a step')).toEqual({ percent: 37, message: 'Rendering blur shields' })
  })
})
