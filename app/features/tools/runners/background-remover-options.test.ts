// The remover's option fields → options: each field's values and limits, and the combinations refused.
import { describe, expect, it } from 'vitest'
import {
  ALPHA_ONLY_MESSAGE,
  checkRemoverCombination,
  CROP_AND_PLACE_MESSAGE,
  CROP_MARGIN_MESSAGE,
  JPEG_NEEDS_BACKGROUND_MESSAGE,
  parseRemoverFields,
  POSITION_MESSAGE,
  SCALE_MESSAGE,
  TWO_BACKGROUNDS_MESSAGE,
} from './background-remover.server'

const refusal = (fields: Record<string, string>) => {
  try {
    checkRemoverCombination(parseRemoverFields(fields))
  } catch (error) {
    return (error as Error).message
  }
  return null
}

describe('parseRemoverFields', () => {
  it('keeps a plain request plain (the streaming PNG path), empty fields included', () => {
    expect(parseRemoverFields({})).toEqual({})
    expect(parseRemoverFields({ background: 'white', format: 'auto', crop: '', crop_margin: '', channels: 'rgba', shadow: '' })).toEqual({ background: 'white' })
    // PNG asked for is kept (the default would follow the upload over a colour), and still streamed.
    expect(parseRemoverFields({ background: 'white', format: 'png' })).toEqual({ background: 'white', format: 'png' })
  })

  it('reads a crop margin in pixels or percent, within remove.bg\'s limits', () => {
    expect(parseRemoverFields({ crop: 'true', crop_margin: '30px' }).crop).toEqual({ margin: { value: 30, unit: 'px' } })
    expect(parseRemoverFields({ crop: 'on', crop_margin: '12' }).crop).toEqual({ margin: { value: 12, unit: 'px' } })
    expect(parseRemoverFields({ crop: '1', crop_margin: '10%' }).crop).toEqual({ margin: { value: 10, unit: '%' } })
    expect(parseRemoverFields({ crop: 'true' }).crop).toEqual({ margin: { value: 0, unit: 'px' } })
    for (const bad of ['501px', '51%', '-3', '1e3', '10 px']) expect(refusal({ crop: 'true', crop_margin: bad })).toBe(CROP_MARGIN_MESSAGE)
  })

  it('reads scale and position as remove.bg writes them', () => {
    expect(parseRemoverFields({ scale: '50%', position: '0% 100%' })).toEqual({ scale: 0.5, position: { x: 0, y: 1 } })
    expect(parseRemoverFields({ position: 'center' })).toEqual({ position: { x: 0.5, y: 0.5 } })
    expect(parseRemoverFields({ position: '25%' })).toEqual({ position: { x: 0.25, y: 0.25 } })
    expect(parseRemoverFields({ scale: 'original', position: 'original' })).toEqual({})
    expect(refusal({ scale: '5%' })).toBe(SCALE_MESSAGE)
    expect(refusal({ scale: '120%' })).toBe(SCALE_MESSAGE)
    expect(refusal({ position: 'top' })).toBe(POSITION_MESSAGE)
    expect(refusal({ position: '150% 0%' })).toBe(POSITION_MESSAGE)
  })

  it('refuses combinations that cannot be honoured', () => {
    expect(refusal({ crop: 'true', scale: '50%' })).toBe(CROP_AND_PLACE_MESSAGE)
    expect(refusal({ channels: 'alpha', background: 'white' })).toBe(ALPHA_ONLY_MESSAGE)
    expect(refusal({ channels: 'alpha', format: 'webp' })).toBe(ALPHA_ONLY_MESSAGE)
    expect(refusal({ channels: 'alpha', shadow: 'true' })).toBe(ALPHA_ONLY_MESSAGE)
    expect(refusal({ format: 'jpg' })).toBe(JPEG_NEEDS_BACKGROUND_MESSAGE)
    expect(refusal({ format: 'jpeg', background: '#fff' })).toBeNull()
    expect(() => checkRemoverCombination({ background: 'white', backgroundImage: true })).toThrow(TWO_BACKGROUNDS_MESSAGE)
    expect(() => checkRemoverCombination({ format: 'jpg', backgroundImage: true })).not.toThrow()
  })

  it('reads semitransparency=false as hard edges and bounds max_megapixels', () => {
    expect(parseRemoverFields({ semitransparency: 'false' })).toEqual({ hardEdges: true })
    expect(parseRemoverFields({ semitransparency: 'true' })).toEqual({})
    expect(parseRemoverFields({ max_megapixels: '0.25' })).toEqual({ maxMegapixels: 0.25 })
    expect(refusal({ max_megapixels: '41' })).toMatch(/max_megapixels/)
    expect(refusal({ shadow: 'maybe' })).toBe('shadow must be true or false.')
  })
})
