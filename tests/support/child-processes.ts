// The studio's own processes for fault tests (docs/decisions/177): started with `node --import tsx`, their
// log lines kept so a test can wait on one (a signal, not a sleep) and written to tests/.tmp/fault-logs/
// (to read after a failure), every one killed at the end.
import { spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, mkdirSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'

export interface StudioChild {
  process: ChildProcess
  name: string
  /** Every line the process wrote (stdout and stderr), in order. */
  lines: string[]
}

const LOG_DIR = 'tests/.tmp/fault-logs'

export class StudioChildren {
  private readonly alive = new Set<StudioChild>()

  constructor(private readonly baseEnv: () => Record<string, string>) {}

  /** Starts `script` (a file run by tsx) with the base environment and `env` on top. */
  start(script: string, name: string, env: Record<string, string> = {}, wrap?: { env: Record<string, string> }): StudioChild {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, ...this.baseEnv(), ...env, ...(wrap?.env ?? {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const started: StudioChild = { process: child, name, lines: [] }
    mkdirSync(LOG_DIR, { recursive: true })
    const logFile = `${LOG_DIR}/${name}-${process.pid}-${child.pid}.log`
    for (const stream of [child.stdout!, child.stderr!]) {
      let rest = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => {
        const parts = (rest + chunk).split('\n')
        rest = parts.pop() ?? ''
        for (const line of parts) {
          started.lines.push(line)
          appendFileSync(logFile, line + '\n')
        }
      })
    }
    this.alive.add(started)
    child.on('exit', () => this.alive.delete(started))
    return started
  }

  /**
   * A worker process (scripts/worker.ts) with its probe server (/readyz, /metrics) at `probeUrl`; `ready`
   * asks its /readyz.
   * Resolves once that answers 200: a worker is up when it says so, not after a guessed time.
   */
  async startWorker(name: string, readyWithinMs: number): Promise<{ child: StudioChild; probeUrl: string; ready: () => Promise<{ status: number; body: any }> }> {
    const probePort = await freePort()
    const child = this.start('scripts/worker.ts', name, { METRICS_PORT: String(probePort) })
    const probeUrl = `http://127.0.0.1:${probePort}`
    const ready = () => getJson(`${probeUrl}/readyz`)
    const deadline = Date.now() + readyWithinMs
    for (;;) {
      if ((await ready()).status === 200) return { child, probeUrl, ready }
      if (child.process.exitCode !== null || Date.now() > deadline) {
        throw new Error(`worker ${name} not ready within ${readyWithinMs} ms (exit code ${child.process.exitCode})`)
      }
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }

  get count(): number {
    return this.alive.size
  }

  /** SIGKILL for whatever is still running: afterAll, pass or fail. */
  async killAll(): Promise<void> {
    await Promise.all([...this.alive].map((child) => kill(child, 'SIGKILL')))
  }
}

export function exited(child: StudioChild): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const p = child.process
  return new Promise((resolve) =>
    p.exitCode !== null || p.signalCode !== null ? resolve({ code: p.exitCode, signal: p.signalCode }) : p.once('exit', (code, signal) => resolve({ code, signal })),
  )
}

export async function kill(child: StudioChild, signal: NodeJS.Signals): Promise<void> {
  const ended = exited(child)
  child.process.kill(signal)
  await ended
}

/** A line (JSON log or plain) that matches, or the reason it did not come. */
export function lineMatching(child: StudioChild, pattern: RegExp): string | undefined {
  return child.lines.find((line) => pattern.test(line))
}

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** GET over HTTP from a child's listener: status and text (status 0 and the error when unreachable). */
export async function getText(url: string): Promise<{ status: number; body: string }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(30_000) })
    return { status: response.status, body: await response.text() }
  } catch (error) {
    return { status: 0, body: (error as Error).message }
  }
}

/** GET over HTTP from a child's listener: status and parsed JSON body (the text when not JSON). */
export async function getJson(url: string): Promise<{ status: number; body: any }> {
  const { status, body } = await getText(url)
  try {
    return { status, body: JSON.parse(body) }
  } catch {
    return { status, body }
  }
}
