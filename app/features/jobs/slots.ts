// A process's run slots (WORKER_CONCURRENCY), shared by the two ways a run starts here: a job its
// pg-boss workers fetched (they wait for a slot) and a synchronous run taken where it was admitted
// (it takes a slot only when one is free and nobody waits: docs/decisions/124). So a process never
// runs more than its slots at once, and a fetched job is never overtaken by later submissions.
export class RunSlots {
  private busy = 0
  private readonly waiting: (() => void)[] = []

  constructor(readonly size: number) {}

  /** A slot now, or false (all busy, or a fetched job is waiting for one). */
  tryTake(): boolean {
    if (this.busy >= this.size || this.waiting.length > 0) return false
    this.busy++
    return true
  }

  /** A slot, waiting in order for one to be given back. */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve()
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  /** Gives a slot back: to the longest waiter, else to the pool. */
  give(): void {
    const next = this.waiting.shift()
    if (next) next()
    else this.busy = Math.max(0, this.busy - 1)
  }

  get inUse(): number {
    return this.busy
  }
}
