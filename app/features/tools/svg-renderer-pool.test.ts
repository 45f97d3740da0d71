// The renderer pool with real renderer processes: a crash, a render over its time limit and a
// render over the memory limit each fail only the render that caused it, and the next one works.
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { ToolError } from './errors.server'
import { RENDER_TIMEOUT_MESSAGE, RENDERER_FAILED_MESSAGE, RendererPool, type PoolOptions } from './svg-renderer-pool.server'

const LIMITS = { format: 'png' as const, fonts: true, maxPixels: 40_000_000, maxSide: 16_383 }
const rect = (side: number) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}"><rect width="${side}" height="${side}" fill="#0a0"/></svg>`
/** resvg 2.6.2 aborts (SIGABRT) on this file once fonts are loaded: see STACK.md. */
const camera = readFileSync('tests/fixtures/svg/openclipart-digital-camera-gradients.svg', 'utf8')
/** A large blur over a 3000 px square: seconds of work for resvg, far over a 50 ms limit. */
const slow = `<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="3000"><filter id="f"><feGaussianBlur stdDeviation="40"/><feGaussianBlur stdDeviation="40"/><feGaussianBlur stdDeviation="40"/></filter><rect width="3000" height="3000" fill="#0a0" filter="url(#f)"/></svg>`

const pools: RendererPool[] = []
function pool(options: Partial<PoolOptions> = {}): RendererPool {
  const created = new RendererPool({ size: 1, timeoutMs: 60_000, memoryMb: 1024, maxRenders: 100, ...options })
  pools.push(created)
  return created
}
afterEach(() => {
  for (const p of pools.splice(0)) p.close()
})

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof ToolError) return error
    throw error
  }
  throw new Error('expected the render to fail')
}

async function renders(p: RendererPool, svg = rect(10)): Promise<void> {
  const out = await p.render({ svg, scale: 1, ...LIMITS })
  expect(out.bytes.subarray(1, 4).toString()).toBe('PNG')
}

describe('RendererPool', () => {
  it('keeps one process for many renders', async () => {
    const p = pool()
    const [pid] = p.pids()
    for (let i = 0; i < 5; i++) await renders(p)
    expect(p.pids()).toEqual([pid])
  })

  it('a renderer that crashes fails only its render (422), is replaced, and the next render works', async () => {
    const p = pool({ size: 2 })
    const before = p.pids()
    const [crashed, fine] = await Promise.allSettled([p.render({ svg: camera, scale: 1, ...LIMITS }), p.render({ svg: rect(20), scale: 1, ...LIMITS })])
    expect(fine.status).toBe('fulfilled')
    // The pinned resvg aborts on this file (STACK.md). Should an upgrade render it, this test fails:
    // find another file that crashes it rather than let the test pass without a crash.
    expect(crashed.status, 'the camera file no longer crashes resvg').toBe('rejected')
    if (crashed.status !== 'rejected') return
    expect(crashed.reason).toBeInstanceOf(ToolError)
    expect((crashed.reason as ToolError).status).toBe(422)
    expect((crashed.reason as ToolError).message).toBe(RENDERER_FAILED_MESSAGE)
    expect((crashed.reason as ToolError).outcome).toBe('failed')
    await renders(p)
    expect(p.pids()).toHaveLength(2)
    expect(p.pids().filter((pid) => !before.includes(pid))).toHaveLength(1)
  })

  it('a render over its time limit is stopped (422) and the next render works', async () => {
    const p = pool({ timeoutMs: 50 })
    const [pid] = p.pids()
    const error = await failure(p.render({ svg: slow, scale: 1, ...LIMITS }))
    expect(error.status).toBe(422)
    expect(error.message).toBe(RENDER_TIMEOUT_MESSAGE)
    expect(error.outcome).toBe('failed')
    // The replacement must render, not beat 50 ms on a busy machine: the limit goes back up first.
    p.options.timeoutMs = 60_000
    await renders(p)
    expect(p.pids()).not.toContain(pid)
  })

  it('the operating system enforces the memory limit: a render that needs more fails (422), the same render fits a larger limit', async () => {
    // A 4000 px square needs about 230 MB (resvg's canvas plus its copy for the answer).
    const small = pool({ memoryMb: 256 })
    const error = await failure(small.render({ svg: rect(4000), scale: 1, ...LIMITS }))
    expect(error.status).toBe(422)
    expect(error.message).toBe(RENDERER_FAILED_MESSAGE)
    await renders(small)
    await renders(pool({ memoryMb: 1024 }), rect(4000))
  })

  it('a renderer is retired after its render count and replaced, without failing a render', async () => {
    const p = pool({ maxRenders: 2 })
    const [first] = p.pids()
    await renders(p)
    await renders(p)
    await renders(p)
    expect(p.pids()).not.toContain(first)
  })

  it('a render waiting for a busy pool is stopped by its abort signal (503); the busy one finishes', async () => {
    const p = pool()
    const busy = p.render({ svg: rect(1000), scale: 1, ...LIMITS })
    const controller = new AbortController()
    const waiting = p.render({ svg: rect(10), scale: 1, ...LIMITS }, controller.signal)
    controller.abort()
    expect((await failure(waiting)).status).toBe(503)
    expect((await busy).width).toBe(1000)
  })

  it('an aborted render kills its renderer and answers 503', async () => {
    const p = pool()
    const controller = new AbortController()
    const pending = p.render({ svg: slow, scale: 1, ...LIMITS }, controller.signal)
    controller.abort()
    expect((await failure(pending)).status).toBe(503)
    await renders(p)
  })
})
