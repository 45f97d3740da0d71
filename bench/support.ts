// What the bench scripts share: the test photos at a chosen size, running a bench as a script, a free
// loopback port, and a process's memory read from /proc.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import sharp from 'sharp'
import type { RgbaImage } from '../app/features/tools/image'

export const PHOTOS = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '../tests/fixtures/photos')

/** A photo of tests/fixtures/photos stretched to about `megapixels` (same aspect), as RGBA. */
export async function fixtureAt(name: string, megapixels: number): Promise<RgbaImage> {
  const meta = await sharp(path.join(PHOTOS, name)).metadata()
  const aspect = (meta.width ?? 1) / (meta.height ?? 1)
  const height = Math.round(Math.sqrt((megapixels * 1e6) / aspect))
  const width = Math.round(height * aspect)
  const { data, info } = await sharp(path.join(PHOTOS, name))
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height }
}

/**
 * When the module at `moduleUrl` is the script node was started with (not imported by bench/run.ts):
 * runs `main`, prints its result as JSON and exits (1 on an error).
 */
export function runAsScript(moduleUrl: string, main: () => Promise<unknown>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(path.resolve(process.argv[1])).href) return
  main().then(
    (result) => {
      console.log(JSON.stringify(result, null, 2))
      process.exit(0)
    },
    (error) => {
      console.error(error)
      process.exit(1)
    },
  )
}

/** A TCP port free on loopback now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

/** A field of /proc/<pid>/status in kB (VmRSS: resident now, VmHWM: its peak); 0 once the process is gone. */
export function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) : 0
  } catch {
    return 0 // gone
  }
}

/** The process and all its descendants (Linux /proc). */
export function processTree(pid: number): number[] {
  const all = [pid]
  for (let i = 0; i < all.length; i++) {
    try {
      for (const task of readFileSync(`/proc/${all[i]}/task/${all[i]}/children`, 'utf8').trim().split(/\s+/)) {
        if (task) all.push(Number(task))
      }
    } catch {
      // exited meanwhile
    }
  }
  return all
}

/** The p-th percentile (nearest rank) of some values. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank]!
}

/** The production server (server.ts, a built app) as a bench runs it. */
export interface SpawnedStudio {
  child: ChildProcess
  /** Its address: PUBLIC_URL, else 127.0.0.1 on PORT. */
  base: string
  /** SIGTERM, then its exit. */
  stop(): Promise<void>
}

/**
 * Starts server.ts with `env` (NODE_ENV, PORT, DATA_DIR and the rest are the caller's) and answers once
 * /healthz does (the signal, polled); gives up after `waitMs`, or at once when the process exits.
 */
export async function spawnStudio(env: NodeJS.ProcessEnv, { waitMs, nodeOptions = [] }: { waitMs: number; nodeOptions?: string[] }): Promise<SpawnedStudio> {
  const base = env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT}`
  const child = spawn(process.execPath, [...nodeOptions, '--import', 'tsx', 'server.ts'], { env, stdio: ['ignore', 'inherit', 'inherit'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
  }
  const deadline = Date.now() + waitMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the studio exited with ${child.exitCode}`)
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) return { child, base, stop }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`the studio did not start in ${Math.round(waitMs / 1000)} s`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
