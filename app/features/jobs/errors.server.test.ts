// A ToolError made by one copy of errors.server.ts is a ToolError to the other copy's instanceof:
// server.ts and the Vite bundle each hold a copy, and an inline run crosses them (a refused charge at
// its outcome, 402, was answered 500 by the production server before the brand).
import { describe, expect, it, vi } from 'vitest'
import { RunTimeoutError, ToolError } from './errors.server'

async function otherCopy(): Promise<typeof import('./errors.server')> {
  vi.resetModules()
  return import('./errors.server')
}

describe('ToolError across the two copies of its module', () => {
  it('is known by either copy, whichever made it', async () => {
    const other = await otherCopy()
    expect(other.ToolError).not.toBe(ToolError)
    const refused = new other.ToolError(402, 'This run would pass your monthly cap.', { outcome: 'rejected' })
    expect(refused instanceof ToolError).toBe(true)
    expect(new ToolError(400, 'bad') instanceof other.ToolError).toBe(true)
    expect(new other.RunTimeoutError(1000) instanceof ToolError).toBe(true)
  })

  it('is not anything else, and a subclass keeps its own check', async () => {
    const other = await otherCopy()
    expect(new Error('plain') instanceof ToolError).toBe(false)
    expect(Object.assign(new Error('look-alike'), { status: 402 }) instanceof ToolError).toBe(false)
    const notObjects: unknown[] = [null, 'ToolError', 402]
    for (const value of notObjects) expect((value as object) instanceof ToolError).toBe(false)
    expect(new ToolError(500, 'broke') instanceof RunTimeoutError).toBe(false)
    expect(new RunTimeoutError(1000) instanceof RunTimeoutError).toBe(true)
    expect(new other.ToolError(500, 'broke') instanceof Error).toBe(true)
  })
})
