import { describe, expect, it } from 'vitest'
import { QueueFullError, RunQueue, RunTimeoutError } from './queue.server'

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

describe('RunQueue', () => {
  it('runs at most `concurrency` tasks at once and starts the waiting ones in order', async () => {
    const queue = new RunQueue({ concurrency: 2, limit: 5, timeoutMs: 10_000 })
    let active = 0
    let peak = 0
    const order: number[] = []
    const gates = Array.from({ length: 5 }, deferred)
    const runs = gates.map((gate, i) =>
      queue.run(async () => {
        active++
        peak = Math.max(peak, active)
        order.push(i)
        await gate.promise
        active--
        return i
      }),
    )
    await Promise.resolve()
    expect(queue.stats()).toMatchObject({ running: 2, waiting: 3 })
    for (const gate of gates) gate.resolve()
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4])
    expect(peak).toBe(2)
    expect(order).toEqual([0, 1, 2, 3, 4])
    expect(queue.stats()).toMatchObject({ running: 0, waiting: 0 })
  })

  it('refuses a run past the waiting limit with 503 and Retry-After, without queueing it', async () => {
    const queue = new RunQueue({ concurrency: 1, limit: 1, timeoutMs: 10_000 })
    const gate = deferred()
    const first = queue.run(() => gate.promise)
    const second = queue.run(() => gate.promise)
    expect(queue.isFull()).toBe(true)
    const refused = await queue.run(async () => 'never').catch((e) => e)
    expect(refused).toBeInstanceOf(QueueFullError)
    expect(refused.status).toBe(503)
    expect(Number(refused.headers['Retry-After'])).toBeGreaterThanOrEqual(1)
    gate.resolve()
    await Promise.all([first, second])
    expect(queue.isFull()).toBe(false)
  })

  it('times a run out, aborts its signal, and frees the slot only when the task really ends', async () => {
    const queue = new RunQueue({ concurrency: 1, limit: 2, timeoutMs: 50 })
    const gate = deferred()
    let aborted = false
    const slow = queue.run(async (signal) => {
      signal.addEventListener('abort', () => (aborted = true))
      await gate.promise
      return 'late'
    })
    const error = await slow.catch((e) => e)
    expect(error).toBeInstanceOf(RunTimeoutError)
    expect(aborted).toBe(true)
    expect(queue.stats().running).toBe(1)
    gate.resolve()
    await new Promise((r) => setTimeout(r, 0))
    expect(queue.stats().running).toBe(0)
    expect(await queue.run(async () => 'next')).toBe('next')
  })

  it('a run that times out while waiting leaves the line without running', async () => {
    const queue = new RunQueue({ concurrency: 1, limit: 2, timeoutMs: 50 })
    const gate = deferred()
    const blocker = queue.run(() => gate.promise).catch((e) => e)
    let ran = false
    const waiting = await queue
      .run(async () => {
        ran = true
      })
      .catch((e) => e)
    expect(waiting).toBeInstanceOf(RunTimeoutError)
    expect(queue.stats().waiting).toBe(0)
    gate.resolve()
    await blocker
    expect(ran).toBe(false)
    expect(queue.stats().running).toBe(0)
  })
})
