// A small pool of long-lived SVG renderer processes (svg-render-child.mjs). resvg 2.6 can abort
// its whole process on some files and its memory is native, so untrusted SVG never renders in the
// server: each renderer is a process of its own, started with an operating-system memory limit
// (RLIMIT_DATA, through the shell's `ulimit -d`), given a time limit per render, and retired after
// a number of renders. A renderer that dies, overruns its time or is retired is replaced. A file
// that took resvg down is drawn once more by librsvg alone, in a fresh renderer under the same
// limits and what is left of the same time (decision 164); only a file neither can draw fails.
// Starting Node costs tens of milliseconds, which is why processes are kept.
import { spawn, type ChildProcess } from 'node:child_process'
import { logger } from '~/utils/logger.server'
import { shippedScript } from '~/utils/shipped-script.server'
import type { SvgFormat } from '../../catalog/tools'
import { ToolError } from '../jobs/errors.server'

/** Which library drew an SVG: resvg, or librsvg (inside sharp) where resvg could not. */
export type SvgRendererName = 'resvg' | 'librsvg'

export interface RenderRequest {
  svg: string
  /** The SVG's own size in CSS pixels (the sanitiser's): librsvg is told the output's size from it. */
  width: number
  height: number
  scale: number
  format: SvgFormat
  /** Flattened onto this CSS colour; none keeps the alpha channel. */
  background?: string
  /** Load the bundled fonts (needed only by text). */
  fonts: boolean
  maxPixels: number
  maxSide: number
  /** librsvg alone, skipping resvg (the pool's second try after resvg took its process down). */
  renderer?: SvgRendererName
}

export interface RenderTimings {
  parseMs: number
  renderMs: number
  encodeMs: number
}

export interface RenderedImage {
  width: number
  height: number
  /** The encoded file, without metadata. */
  bytes: Buffer
  /** Peak memory of the renderer process so far (kB), for the benchmark. */
  maxRssKb: number
  timings: RenderTimings
  renderer: SvgRendererName
  /** Why resvg did not draw it, when librsvg did. */
  resvgFailure?: string
}

export interface PoolOptions {
  size: number
  /** Per render; past it the renderer is killed and the render fails with 422. */
  timeoutMs: number
  /** The data limit of each renderer process (RLIMIT_DATA), in MiB. */
  memoryMb: number
  /** Renders before a process is retired and replaced (bounds any slow leak). */
  maxRenders: number
}

type ChildAnswer = { id: number; maxRssKb: number } & (
  | { ok: true; width: number; height: number; bytes: Uint8Array; timings: RenderTimings; renderer: SvgRendererName; resvgError?: string }
  | { ok: false; status: number; error: string; bothFailed?: boolean }
)

const RESTART_DELAY_MS = 1000

export const RENDERER_FAILED_MESSAGE = 'This SVG could not be rendered: both renderers (resvg and librsvg) failed on it. Try simplifying the file.'
export const RENDER_TIMEOUT_MESSAGE = 'This SVG took too long to render. Try simplifying the file or a smaller scale.'
/** Why resvg did not draw a file librsvg then drew, when resvg took its process down. */
export const RESVG_CRASHED = 'resvg crashed on it'

/** A renderer process that died while it held a render (a crash or the memory limit), not one we stopped. */
class RendererDied extends ToolError {
  constructor() {
    super(422, RENDERER_FAILED_MESSAGE, { outcome: 'failed' })
  }
}

/** Neither resvg nor librsvg drew the file: nothing is left to try. */
function neitherDrew(): ToolError {
  return new ToolError(422, RENDERER_FAILED_MESSAGE, { outcome: 'failed' })
}

const childScript = () => shippedScript(import.meta.url, 'app/features/tools/svg-render-child.mjs')

interface Pending {
  id: number
  resolve: (value: RenderedImage) => void
  reject: (error: ToolError) => void
  timer: NodeJS.Timeout
  /** Why the process was killed while it held this render, if we killed it. */
  killedFor?: 'timeout' | 'aborted'
}

class Renderer {
  readonly child: ChildProcess
  renders = 0
  /** Taken by a render (set synchronously when handed out, so two callers never share it). */
  claimed = false
  pending: Pending | null = null
  dead = false
  /** Whether the process ever reported ready (one that dies before that is not restarted at once). */
  started = false
  /** Settles when the process has started and can take a render (its start-up is not render time). */
  readonly ready: Promise<boolean>
  private stderr = ''

  constructor(script: string, memoryMb: number, onExit: (renderer: Renderer) => void) {
    // `ulimit -d` sets RLIMIT_DATA (kB) for the shell, and `exec` hands it to Node with the IPC
    // channel (fd and NODE_CHANNEL_FD) intact. RLIMIT_DATA counts memory that was actually made
    // writable, unlike an address-space limit, which Node's large reservations would exhaust.
    this.child = spawn('/bin/sh', ['-c', 'ulimit -d "$1" && exec "$2" "$3"', 'svg-renderer', String(memoryMb * 1024), process.execPath, script], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      env: { PATH: process.env.PATH ?? '', NODE_ENV: process.env.NODE_ENV ?? 'production' },
    })
    this.child.stderr?.on('data', (chunk: Buffer) => {
      if (this.stderr.length < 2000) this.stderr += chunk.toString()
    })
    let started: (ok: boolean) => void = () => {}
    this.ready = new Promise((resolve) => (started = resolve))
    this.child.on('message', (message) => {
      if ((message as { ready?: boolean }).ready) {
        this.started = true
        started(true)
      }
      else this.answer(message as ChildAnswer)
    })
    this.child.on('error', (error) => logger.warn({ err: error.message }, 'SVG renderer could not start'))
    this.child.on('exit', (code, signal) => {
      this.dead = true
      started(false)
      const pending = this.pending
      this.pending = null
      if (pending) {
        clearTimeout(pending.timer)
        if (pending.killedFor === 'aborted') pending.reject(new ToolError(503, 'The conversion was stopped.', { outcome: 'failed' }))
        else if (pending.killedFor === 'timeout') pending.reject(new ToolError(422, RENDER_TIMEOUT_MESSAGE, { outcome: 'failed' }))
        else {
          logger.warn({ code, signal, stderr: this.stderr.slice(0, 500) }, 'SVG renderer died')
          pending.reject(new RendererDied())
        }
      }
      onExit(this)
    })
    this.idle()
  }

  /** An idle renderer must not keep a script or a test run alive. */
  private idle(): void {
    this.child.unref()
    this.child.channel?.unref()
    ;(this.child.stderr as unknown as { unref?: () => void } | null)?.unref?.()
  }

  private busy(): void {
    this.child.ref()
    this.child.channel?.ref()
  }

  async render(id: number, request: RenderRequest, timeoutMs: number, signal: AbortSignal | undefined): Promise<RenderedImage> {
    this.renders++
    // Held (referenced) from here, so a script waiting only on this render stays alive.
    this.busy()
    if (!(await this.ready)) throw new ToolError(500, 'Unable to convert SVG.')
    if (signal?.aborted) {
      this.idle()
      throw new ToolError(503, 'The conversion was stopped.', { outcome: 'failed' })
    }
    return new Promise<RenderedImage>((resolve, reject) => {
      const kill = (reason: 'timeout' | 'aborted') => {
        if (this.pending?.id !== id) return
        this.pending.killedFor = reason
        this.child.kill('SIGKILL')
      }
      const onAbort = () => kill('aborted')
      signal?.addEventListener('abort', onAbort, { once: true })
      const done = () => signal?.removeEventListener('abort', onAbort)
      this.pending = {
        id,
        resolve: (value) => (done(), resolve(value)),
        reject: (error) => (done(), reject(error)),
        timer: setTimeout(() => kill('timeout'), timeoutMs),
      }
      this.child.send({ id, ...request }, (error) => {
        if (error) kill('aborted')
      })
    })
  }

  private answer(message: ChildAnswer): void {
    const pending = this.pending
    if (!pending || pending.id !== message.id) return
    this.pending = null
    clearTimeout(pending.timer)
    this.idle()
    if (message.ok) {
      pending.resolve({
        width: message.width,
        height: message.height,
        bytes: Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength),
        maxRssKb: message.maxRssKb,
        timings: message.timings,
        renderer: message.renderer,
        ...(message.resvgError ? { resvgFailure: message.resvgError } : {}),
      })
    } else if (message.bothFailed) {
      logger.warn({ err: message.error }, 'neither resvg nor librsvg drew an SVG')
      pending.reject(neitherDrew())
    } else {
      pending.reject(new ToolError(message.status, message.error, { outcome: message.status >= 422 ? 'failed' : 'rejected' }))
    }
  }

  retire(): void {
    this.dead = true
    // The renderer exits when its channel closes.
    if (this.child.connected) this.child.disconnect()
  }
}

export class RendererPool {
  private readonly renderers: Renderer[] = []
  private readonly waiting: (() => void)[] = []
  private nextId = 1
  private closed = false
  private readonly script = childScript()

  constructor(readonly options: PoolOptions) {
    // Started up front, so the first conversion does not wait for Node to boot.
    for (let i = 0; i < options.size; i++) this.renderers.push(this.start())
  }

  private start(): Renderer {
    return new Renderer(this.script, this.options.memoryMb, (gone) => {
      const index = this.renderers.indexOf(gone)
      if (index >= 0) this.renderers.splice(index, 1)
      const replace = () => {
        if (!this.closed && this.renderers.length < this.options.size) this.renderers.push(this.start())
        this.wakeOne()
      }
      // A dead or retired process is replaced at once, so the next render finds one ready; one
      // that could not even start waits a moment first, so a broken setup does not spin.
      if (gone.started) replace()
      else setTimeout(replace, RESTART_DELAY_MS).unref()
    })
  }

  private wakeOne(): void {
    this.waiting.shift()?.()
  }

  private async acquire(signal?: AbortSignal): Promise<Renderer> {
    for (;;) {
      signal?.throwIfAborted()
      const free = this.renderers.find((r) => !r.dead && !r.claimed)
      if (free) {
        free.claimed = true
        return free
      }
      // Woken when a renderer frees up or is replaced, or when the run is stopped.
      await new Promise<void>((wake) => {
        const onAbort = () => {
          this.waiting.splice(this.waiting.indexOf(woken), 1)
          wake()
        }
        const woken = () => {
          signal?.removeEventListener('abort', onAbort)
          wake()
        }
        this.waiting.push(woken)
        signal?.addEventListener('abort', onAbort, { once: true })
      })
    }
  }

  /**
   * Renders on the first free renderer. When resvg takes its process down, librsvg draws the file in
   * another renderer, within what is left of the time limit; a render we stopped is not tried again.
   */
  async render(request: RenderRequest, signal?: AbortSignal): Promise<RenderedImage> {
    const deadline = performance.now() + this.options.timeoutMs
    try {
      return await this.renderOnce(request, this.options.timeoutMs, signal)
    } catch (error) {
      if (!(error instanceof RendererDied) || request.renderer === 'librsvg') throw error
      const left = deadline - performance.now()
      if (left <= 0) throw new ToolError(422, RENDER_TIMEOUT_MESSAGE, { outcome: 'failed' })
      try {
        return { ...(await this.renderOnce({ ...request, renderer: 'librsvg' }, left, signal)), resvgFailure: RESVG_CRASHED }
      } catch (second) {
        // librsvg's own words are libvips's internals: the caller is told that both failed.
        if (second instanceof ToolError && second.status === 422 && second.message !== RENDER_TIMEOUT_MESSAGE) {
          logger.warn({ err: second.message }, 'librsvg failed on an SVG that crashed resvg')
          throw neitherDrew()
        }
        throw second
      }
    }
  }

  private async renderOnce(request: RenderRequest, timeoutMs: number, signal?: AbortSignal): Promise<RenderedImage> {
    if (this.closed) throw new Error('the SVG renderer pool is closed')
    let renderer: Renderer
    try {
      renderer = await this.acquire(signal)
    } catch {
      throw new ToolError(503, 'The conversion was stopped.', { outcome: 'failed' })
    }
    try {
      return await renderer.render(this.nextId++, request, timeoutMs, signal)
    } finally {
      renderer.claimed = false
      if (!renderer.dead && renderer.renders >= this.options.maxRenders) renderer.retire()
      this.wakeOne()
    }
  }

  /** Process ids of the live renderers (tests read them). */
  pids(): number[] {
    return this.renderers.filter((r) => !r.dead && r.child.pid).map((r) => r.child.pid!)
  }

  close(): void {
    this.closed = true
    for (const renderer of this.renderers.splice(0)) {
      renderer.retire()
      renderer.child.kill('SIGKILL')
    }
  }
}
