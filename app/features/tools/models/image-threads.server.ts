// The image threads: worker threads (image-worker.mjs) that take the JavaScript-heavy parts of a
// large image's work off the main thread and onto every core: the PNG encoder's segments
// (png.server.ts) and the remover's matte upscale (matte-upscale.server.ts). docs/decisions/077.
import os from 'node:os'
import { RequestThread } from '~/utils/request-thread.server'
import { shippedScript } from '~/utils/shipped-script.server'
import { singleton } from '~/utils/singleton.server'

/** Work that failed because its image thread stopped (an uncaught error, its heap limit, an exit) before answering. */
export class ImageThreadError extends Error {
  constructor(exitCode: number, reason?: string) {
    super(`An image thread stopped unexpectedly (exit code ${exitCode}${reason ? `: ${reason}` : ''}), so this run failed. The next run starts a new thread.`)
    this.name = 'ImageThreadError'
  }
}

const workerScript = () => shippedScript(import.meta.url, 'app/features/tools/models/image-worker.mjs')

/** One thread per core, started on first use; a stopped one is replaced on the next request. */
class ImageThreads {
  private readonly threads: (RequestThread | undefined)[] = new Array(os.availableParallelism()).fill(undefined)
  private script: string | undefined

  get size(): number {
    return this.threads.length
  }

  /** The live thread with the fewest requests waiting. */
  pick(): RequestThread {
    let best: RequestThread | undefined
    for (let k = 0; k < this.threads.length; k++) {
      let thread = this.threads[k]
      if (!thread || thread.dead) {
        this.script ??= workerScript()
        thread = new RequestThread(this.script, (code, reason) => new ImageThreadError(code, reason))
        this.threads[k] = thread
      }
      if (!best || thread.pending < best.pending) best = thread
    }
    return best!
  }

  /** The running threads (tests make one crash to see it handled). */
  workers() {
    return this.threads.filter((t): t is RequestThread => !!t && !t.dead).map((t) => t.worker)
  }
}

const threads = singleton('image-threads', () => new ImageThreads())

export function imageThreads(): ImageThreads {
  return threads
}
