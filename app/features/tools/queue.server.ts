// Bounded work: at most `concurrency` runs at once, at most `limit` waiting, each with a time limit.
// Past the waiting limit a run is refused at once (503 + Retry-After) rather than letting every
// request slow down or the process run out of memory. One queue per process (see singleton).
import { config } from '~/config.server'
import { singleton } from '~/utils/singleton.server'
import { ToolError } from './errors.server'

export class QueueFullError extends ToolError {
  constructor(readonly retryAfterSeconds: number) {
    super(503, 'The studio is busy right now. Please try again in a few seconds.', {
      outcome: 'rejected',
      headers: { 'Retry-After': String(retryAfterSeconds) },
    })
  }
}

export class RunTimeoutError extends ToolError {
  constructor(timeoutMs: number) {
    super(503, `The run took longer than ${Math.round(timeoutMs / 1000)} seconds and was stopped. Try a smaller image.`, {
      outcome: 'failed',
      headers: { 'Retry-After': '30' },
    })
  }
}

export interface QueueOptions {
  concurrency: number
  limit: number
  timeoutMs: number
}

export interface QueueStats {
  running: number
  waiting: number
  concurrency: number
  limit: number
}

type Task<T> = (signal: AbortSignal) => Promise<T>

export class RunQueue {
  private running = 0
  private readonly waiting: Array<() => void> = []
  /** A moving average of run time, to tell refused clients when to come back. */
  private averageMs = 2_000

  constructor(readonly options: QueueOptions) {}

  stats(): QueueStats {
    return { running: this.running, waiting: this.waiting.length, concurrency: this.options.concurrency, limit: this.options.limit }
  }

  /** True when a new run would be refused: checked before charging, so a busy server charges nothing. */
  isFull(): boolean {
    return this.running >= this.options.concurrency && this.waiting.length >= this.options.limit
  }

  retryAfterSeconds(): number {
    const ahead = this.running + this.waiting.length
    return Math.max(1, Math.ceil((this.averageMs * ahead) / this.options.concurrency / 1000))
  }

  /**
   * Runs `task` when a slot is free. The time limit covers waiting and running. On timeout the
   * caller gets RunTimeoutError at once and the task's signal is aborted; the slot itself is freed
   * only when the task really ends, because an onnxruntime run cannot be cancelled midway (the SVG
   * renderer's child process can, and is killed on abort). Counting the slot until then keeps the
   * number of runs actually using the CPU bounded.
   */
  async run<T>(task: Task<T>): Promise<T> {
    if (this.isFull()) throw new QueueFullError(this.retryAfterSeconds())
    const controller = new AbortController()
    let timer: NodeJS.Timeout | undefined
    let timedOut = false
    let cancelWaiting: (() => void) | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true
        cancelWaiting?.()
        controller.abort()
        reject(new RunTimeoutError(this.options.timeoutMs))
      }, this.options.timeoutMs)
    })
    const work = (async () => {
      await this.acquire((cancel) => (cancelWaiting = cancel))
      if (timedOut) {
        this.release()
        throw new RunTimeoutError(this.options.timeoutMs)
      }
      const started = performance.now()
      try {
        return await task(controller.signal)
      } finally {
        this.averageMs = this.averageMs * 0.8 + (performance.now() - started) * 0.2
        this.release()
      }
    })()
    // The loser of the race must not become an unhandled rejection.
    work.catch(() => {})
    try {
      return await Promise.race([work, timeout])
    } finally {
      clearTimeout(timer)
      timeout.catch(() => {})
    }
  }

  private acquire(onQueued: (cancel: () => void) => void): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running++
      return Promise.resolve()
    }
    return new Promise<void>((resolve) => {
      const entry = () => {
        this.running++
        resolve()
      }
      this.waiting.push(entry)
      onQueued(() => {
        // A run that timed out while waiting leaves the line without taking a slot.
        const index = this.waiting.indexOf(entry)
        if (index >= 0) {
          this.waiting.splice(index, 1)
          this.running++
          resolve()
        }
      })
    })
  }

  private release(): void {
    this.running--
    const next = this.waiting.shift()
    if (next) next()
  }
}

export function toolQueue(): RunQueue {
  return singleton('tool-run-queue', () => {
    const c = config()
    return new RunQueue({ concurrency: c.toolConcurrency, limit: c.TOOL_QUEUE_LIMIT, timeoutMs: c.TOOL_TIMEOUT_MS })
  })
}
