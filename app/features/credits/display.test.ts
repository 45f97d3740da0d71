import { describe, expect, it } from 'vitest'
import {
  describeTransaction,
  displayToolSlug,
  formatActivityDate,
  formatDelta,
  formatPrice,
  kindLabel,
  percentRemaining,
} from './display'

describe('percentRemaining', () => {
  it('is balance over balance plus lifetime spending, as a percentage', () => {
    expect(percentRemaining(30, 10)).toBe(75)
    expect(percentRemaining(1, 2)).toBeCloseTo(33.333, 2)
    expect(percentRemaining(0, 12)).toBe(0)
  })

  it('is 100 when nothing was ever spent or held', () => {
    expect(percentRemaining(0, 0)).toBe(100)
    expect(percentRemaining(5, 0)).toBe(100)
  })

  it('never exceeds 100', () => {
    expect(percentRemaining(50, -10)).toBe(100)
  })
})

describe('transaction display', () => {
  it('labels the four kinds as the spec names them', () => {
    expect(['purchase', 'consume', 'adjustment', 'bonus'].map(kindLabel)).toEqual(['Purchase', 'Usage', 'Adjustment', 'Bonus'])
  })

  it('shows tool slugs with spaces instead of underscores', () => {
    expect(displayToolSlug('background_remover')).toBe('background remover')
    expect(displayToolSlug('svg_converter_v2')).toBe('svg converter v2')
    expect(displayToolSlug(null)).toBeNull()
  })

  it('signs deltas', () => {
    expect(formatDelta(50)).toBe('+50')
    expect(formatDelta(-2)).toBe('\u22122')
    expect(formatDelta(1500)).toBe('+1,500')
    expect(formatDelta(0)).toBe('0')
  })

  it('describes a usage row and a refund row', () => {
    const base = { id: 1, created_at: '2026-11-22T10:24:00.000Z' }
    expect(describeTransaction({ ...base, kind: 'consume', delta: -1, description: null, tool_slug: 'face_blurrer' })).toEqual({
      label: 'Usage',
      detail: 'face blurrer',
      delta: '\u22121',
      positive: false,
    })
    expect(
      describeTransaction({ ...base, kind: 'adjustment', delta: 2, description: 'Refund', tool_slug: 'image_enhancer' }),
    ).toEqual({ label: 'Adjustment', detail: 'image enhancer · Refund', delta: '+2', positive: true })
    expect(describeTransaction({ ...base, kind: 'bonus', delta: 50, description: 'Welcome bonus', tool_slug: null }).detail).toBe(
      'Welcome bonus',
    )
  })

  it('formats prices in dollars and dates in UTC', () => {
    expect(formatPrice(9)).toBe('$9')
    expect(formatPrice(129)).toBe('$129')
    expect(formatPrice(9.5)).toBe('$9.50')
    expect(formatActivityDate('2026-11-22T10:24:00.000Z')).toBe('Nov 22, 2026, 10:24 UTC')
    expect(formatActivityDate('not a date')).toBe('')
  })
})
