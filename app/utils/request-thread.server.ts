// A worker thread spoken to by requests and answers: each request carries an id and the thread
// answers it, in any order, with { id, ok: true, ...fields } or { id, ok: false, error } (the
// thread's side is serveRequests in serve-requests.mjs). The inference threads and the PNG
// encoder's threads are such threads.
import { Worker } from 'node:worker_threads'

type Answer = { id: number } & ({ ok: true; [field: string]: unknown } | { ok: false; error: { name: string; message: string } })

interface Waiting {
  resolve: (answer: Record<string, unknown>) => void
  reject: (error: Error) => void
}

/** One worker thread and the requests it has not answered yet. */
export class RequestThread {
  readonly worker: Worker
  private readonly waiting = new Map<number, Waiting>()
  private nextId = 1
  dead = false
  private failure: string | undefined

  /** `stopped` makes the error each unanswered request fails with when the thread ends. */
  constructor(script: string, private readonly stopped: (exitCode: number, reason?: string) => Error) {
    // execArgv empty: the thread runs plain JavaScript and needs no tsx loader from the parent.
    this.worker = new Worker(script, { execArgv: [] })
    this.worker.on('message', (message: Answer) => this.answer(message))
    // An uncaught error in the thread ends it; 'exit' follows and fails what it held.
    this.worker.on('error', (error) => (this.failure = error.message))
    this.worker.on('messageerror', (error) => (this.failure = error.message))
    this.worker.on('exit', (code) => {
      this.dead = true
      const held = [...this.waiting.values()]
      this.waiting.clear()
      for (const w of held) w.reject(this.stopped(code, this.failure))
    })
    // An idle thread must not keep a script or a test run alive.
    this.worker.unref()
  }

  /** Requests the thread has not answered yet. */
  get pending(): number {
    return this.waiting.size
  }

  request(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<Record<string, unknown>> {
    if (this.dead) return Promise.reject(this.stopped(-1, 'the thread had already stopped'))
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      // Held (referenced) while it owes an answer, so a script waiting only on this request stays alive.
      if (this.waiting.size === 1) this.worker.ref()
      try {
        this.worker.postMessage({ ...message, id }, transfer)
      } catch (error) {
        this.settled(id)
        reject(error as Error)
      }
    })
  }

  private settled(id: number): Waiting | undefined {
    const w = this.waiting.get(id)
    this.waiting.delete(id)
    if (this.waiting.size === 0 && !this.dead) this.worker.unref()
    return w
  }

  private answer(message: Answer): void {
    const w = this.settled(message.id)
    if (!w) return
    if (message.ok) w.resolve(message)
    else w.reject(Object.assign(new Error(message.error.message), { name: message.error.name }))
  }
}
