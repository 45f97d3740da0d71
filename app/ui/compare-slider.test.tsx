import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { clampPosition, COMPARE_START, CompareSlider } from './compare-slider'

describe('clampPosition', () => {
  it('keeps whole numbers between 0 and 100', () => {
    expect(clampPosition(-5)).toBe(0)
    expect(clampPosition(140)).toBe(100)
    expect(clampPosition(33.6)).toBe(34)
    expect(clampPosition(Number.NaN)).toBe(COMPARE_START)
  })
  it('starts at 50', () => {
    expect(COMPARE_START).toBe(50)
  })
})

describe('CompareSlider server markup', () => {
  it('renders the overlay at 50 and, for browsers without JavaScript, both images side by side', () => {
    const html = renderToString(
      <CompareSlider
        before={{ src: '/a.webp', alt: 'Original', label: 'Original upload' }}
        after={{ src: '/b.webp', alt: 'Result', label: 'Blurred output', style: { filter: 'blur(8px)' } }}
        width={320}
        height={240}
      />,
    )
    expect(html).toContain('data-compare="side-by-side"')
    expect(html).toContain('data-compare="overlay"')
    expect(html).toContain('inset(0 0 0 50%)')
    expect(html).toContain('value="50"')
    expect(html).toContain('src="/a.webp"')
    expect(html).toContain('src="/b.webp"')
    expect(html).toContain('Original upload')
    expect(html).toContain('Blurred output')
    expect(html).toContain('width="320"')
    expect(html).toContain('height="240"')
    expect(html).toContain('filter:blur(8px)')
    expect(html).toMatch(/type="range"[^>]*min="0"[^>]*max="100"[^>]*step="1"/)
    // Two images in each layout, so four img elements with the same two sources.
    expect(html.match(/<img /g)).toHaveLength(4)
  })
})
