import { describe, expect, it } from 'vitest'
import { statusLabel } from './status-badge'

describe('the status badge', () => {
  it('names a failed SVG conversion failed, never queued (the word of a file waiting to be sent)', () => {
    expect(statusLabel('svg-converter', 'error')).toBe('failed')
    expect(statusLabel('svg-converter', 'ready')).toBe('queued')
    expect(statusLabel('svg-converter', 'processing')).toBe('processing')
    expect(statusLabel('svg-converter', 'complete')).toBe('ready')
    expect(statusLabel('face-blurrer', 'error')).toBe('Error')
  })
})
