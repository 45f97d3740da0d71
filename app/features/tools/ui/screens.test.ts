import { describe, expect, it } from 'vitest'
import { TOOLS } from '~/catalog/tools'
import { readRestored } from './face-restorer-screen'
import { enhancedFilename } from './image-enhancer-screen'
import { toolMeta, toolStructuredData } from './structured-data'
import { ToolRunError } from './use-tool-run'

describe('face restorer answer', () => {
  it('needs restored_url as a string', () => {
    expect(readRestored({ restored_url: '/api/results/a', gfpgan_available: true, filename: 'face-restored.jpg' })).toEqual({
      at: { preview: '/api/results/a/preview', full: '/api/results/a', download: '/api/results/a?download=1' },
      gfpganAvailable: true,
      filename: 'face-restored.jpg',
    })
    // An answer without a name (an older studio) falls back to the catalog's.
    expect(readRestored({ restored_url: '/api/results/a' }).filename).toBe('face-restored.png')
    expect(readRestored({ restored_url: '/api/results/b' }).gfpganAvailable).toBe(false)
    for (const body of [{}, { restored_url: 42 }, { restored_url: '' }, null, 'x']) {
      expect(() => readRestored(body)).toThrowError(new ToolRunError('Server response missing restored image URL.'))
    }
  })
})

describe('enhancer download name', () => {
  it("uses the server's name, else enhanced.png", () => {
    expect(enhancedFilename(`attachment; filename="cat-enhanced.png"; filename*=UTF-8''cat-enhanced.png`)).toBe('cat-enhanced.png')
    expect(enhancedFilename(null)).toBe('enhanced.png')
  })
})

describe('structured data', () => {
  it('advertises each tool as a free web application', () => {
    const data = toolStructuredData(TOOLS['face-blurrer'], 'https://studio.example')
    expect(data['@type']).toBe('WebApplication')
    expect(data.url).toBe('https://studio.example/tools/face-blurrer')
    expect(data.offers).toEqual({ '@type': 'Offer', price: '0', priceCurrency: 'USD' })
    const meta = toolMeta(TOOLS['svg-converter'], 'https://studio.example')
    expect(meta).toContainEqual({ title: 'SVG converter · Facet Studio' })
    expect(meta.some((m) => 'script:ld+json' in m)).toBe(true)
  })
})

describe('badge after a page post', () => {
  it("shows the posted run's outcome until a browser run starts", async () => {
    const { shownStatus } = await import('./page-result')
    const failed = { ok: false as const, status: 402, error: 'x', remaining: 0 }
    expect(shownStatus('idle', undefined)).toBe('idle')
    expect(shownStatus('idle', failed)).toBe('error')
    expect(shownStatus('idle', { ok: true, resultUrl: '/a', downloadUrl: '/a?download=1', filename: 'a.png', contentType: 'image/png', remaining: 1 })).toBe('complete')
    expect(shownStatus('ready', failed)).toBe('ready')
  })
})
