import { describe, expect, it } from 'vitest'
import { MODEL_INPUT_BUDGET, OUTPUT_CAP_PIXELS } from '~/features/tools/image-enhancer.server'
import {
  checkFit,
  ENHANCER_MODEL_BUDGET,
  ENHANCER_OUTPUT_CAP,
  estimateMs,
  formatDuration,
  LIMIT_SHARE,
  rateVariant,
  seedMs,
  tooSlowMessage,
  type RunTiming,
} from './run-time'

const timing = (tool: RunTiming['tool'], factor = 1, limitMs = 120_000): RunTiming => ({ tool, factor, limitMs })

describe('the estimate', () => {
  it('grows with the pixels and with the measured speed', () => {
    const small = estimateMs(timing('background-remover'), 1000, 1000)!
    const large = estimateMs(timing('background-remover'), 4000, 3000)!
    expect(large).toBeGreaterThan(small)
    expect(estimateMs(timing('background-remover', 3), 1000, 1000)).toBe(Math.round(small * 3))
  })

  it('follows the enhancer: its model sees at most 1 MP, so 12 MP costs little more than 1 MP', () => {
    const oneMp = seedMs('image-enhancer', 1000, 1000)
    const twelveMp = seedMs('image-enhancer', 4000, 3000)
    const quarterMp = seedMs('image-enhancer', 500, 500)
    expect(twelveMp / oneMp).toBeLessThan(1.5)
    expect(oneMp / quarterMp).toBeGreaterThan(2)
  })

  it('keeps the enhancer budget and cap that the enhancer uses', () => {
    expect(ENHANCER_MODEL_BUDGET).toBe(MODEL_INPUT_BUDGET)
    expect(ENHANCER_OUTPUT_CAP).toBe(OUTPUT_CAP_PIXELS)
  })

  it('is not made for the SVG converter (it has a render limit of its own)', () => {
    expect(estimateMs(timing('svg-converter', 50), 10_000, 10_000)).toBeNull()
    expect(checkFit(timing('svg-converter', 50), 10_000, 10_000)).toEqual({ fits: true, estimateMs: null })
  })

  it('measures the remover per model choice and every other tool once', () => {
    expect(rateVariant('background-remover', {})).toBe('auto')
    expect(rateVariant('background-remover', { model: 'quality' })).toBe('quality')
    expect(rateVariant('image-enhancer', { model: 'quality' })).toBe('')
  })
})

describe('the fit in the time limit', () => {
  it('passes an image whose estimate is within the share of the limit', () => {
    const fit = checkFit(timing('image-enhancer'), 4000, 3000)
    expect(fit.fits).toBe(true)
  })

  it('refuses a 12 MP photo on a slow server and names the largest size of the same shape that fits', () => {
    const slow = timing('image-enhancer', 5)
    const fit = checkFit(slow, 4000, 3000)
    if (fit.fits) throw new Error('expected a refusal')
    expect(fit.estimateMs).toBeGreaterThan(120_000 * LIMIT_SHARE)
    const largest = fit.largest!
    expect(largest.width).toBeLessThan(4000)
    expect(largest.width / largest.height).toBeCloseTo(4 / 3, 2)
    // The largest: it fits, and a few pixels more would not.
    expect(estimateMs(slow, largest.width, largest.height)!).toBeLessThanOrEqual(120_000 * LIMIT_SHARE)
    expect(estimateMs(slow, largest.width + 4, largest.height + 3)!).toBeGreaterThan(120_000 * LIMIT_SHARE)
  })

  it('offers no size when even the smallest would not finish', () => {
    const fit = checkFit(timing('face-restorer', 40), 3000, 2000)
    expect(fit).toMatchObject({ fits: false, largest: null })
  })

  it('words the refusal with the sizes, the estimate and the limit', () => {
    const fit = { fits: false as const, estimateMs: 150_000, largest: { width: 1200, height: 900 } }
    expect(tooSlowMessage(fit, 4000, 3000, 120_000)).toBe(
      'This image (4000 × 3000) would take about 2 min 30 s here, longer than the 2 min a run may take. ' +
        'Downscale it to 1200 × 900 or smaller and try again. Nothing was charged.',
    )
    expect(tooSlowMessage({ ...fit, largest: null }, 4000, 3000, 120_000)).toContain('too busy to finish it in time now')
  })
})

describe('durations', () => {
  it('formats durations as a person reads them', () => {
    expect(formatDuration(4_400)).toBe('4 s')
    expect(formatDuration(60_000)).toBe('1 min')
    expect(formatDuration(95_000)).toBe('1 min 35 s')
  })
})
