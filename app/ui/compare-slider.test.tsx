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

describe('CompareSlider without JavaScript', () => {
  it('renders both images side by side with their labels and sizes', () => {
    const html = renderToString(
      <CompareSlider
        before={{ src: '/a.webp', alt: 'Original', label: 'Original upload' }}
        after={{ src: '/b.webp', alt: 'Result', label: 'Blurred output', style: { filter: 'blur(8px)' } }}
        width={320}
        height={240}
      />,
    )
    expect(html).toContain('data-compare="side-by-side"')
    expect(html).toContain('src="/a.webp"')
    expect(html).toContain('src="/b.webp"')
    expect(html).toContain('Original upload')
    expect(html).toContain('Blurred output')
    expect(html).toContain('width="320"')
    expect(html).toContain('height="240"')
    expect(html).toContain('filter:blur(8px)')
    expect(html).not.toContain('type="range"')
  })
})
