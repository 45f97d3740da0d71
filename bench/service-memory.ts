// Peak memory of the whole service under 8 concurrent 12 MP uploads: the real server (production
// build, embedded database in a scratch folder) is started, sent 4 background removals and 4 face
// blurs of a 12 MP JPEG at once, and its peak resident memory (VmHWM) is read with every child
// process it started (the SVG renderers, if any). Part of `npm run bench` (tools section), or
// alone: npx tsx bench/tools.ts memory
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { freePort, processTree, statusKb } from './support'

const ROOT = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..')
const UPLOADS = 8
const BUDGET_MB = 1536

async function upload12Mp(): Promise<Buffer> {
  const source = path.join(ROOT, 'tests/fixtures/photos/portrait-astronaut.png')
  const meta = await sharp(source).metadata()
  const aspect = (meta.width ?? 1) / (meta.height ?? 1)
  const height = Math.round(Math.sqrt(12e6 / aspect))
  return sharp(source).resize(Math.round(height * aspect), height, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer()
}

export async function benchServiceMemory(): Promise<object> {
  // A fresh production build of its own, so the measurement never runs yesterday's code.
  const buildDir = 'build-bench'
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/@remix-run/dev/dist/cli.js'), 'vite:build'], {
    cwd: ROOT,
    stdio: 'ignore',
    env: { ...process.env, BUILD_DIR: buildDir },
  })
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'facet-bench-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  // The embedded database in a scratch folder, whatever the caller's environment says.
  const { DATABASE_URL: _ignored, ...inherited } = process.env
  const server = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...inherited,
      NODE_ENV: 'production',
      BUILD_DIR: buildDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
      RATE_LIMITS: 'false',
      LOG_LEVEL: 'warn',
      TOOL_QUEUE_LIMIT: String(UPLOADS),
    },
  })
  const pid = server.pid!
  let peakTreeRssKb = 0
  const hwm = new Map<number, number>()
  const sample = () => {
    let total = 0
    for (const p of processTree(pid)) {
      total += statusKb(p, 'VmRSS')
      hwm.set(p, Math.max(hwm.get(p) ?? 0, statusKb(p, 'VmHWM')))
    }
    peakTreeRssKb = Math.max(peakTreeRssKb, total)
  }
  try {
    for (let tries = 0; ; tries++) {
      if (tries > 600) throw new Error('the server did not start within 60 s')
      const ok = await fetch(`${base}/healthz`).then((r) => r.ok, () => false)
      if (ok) break
      await new Promise((r) => setTimeout(r, 100))
    }
    const jpeg = await upload12Mp()
    const idleKb = statusKb(pid, 'VmRSS')
    const sampler = setInterval(sample, 20)
    const started = performance.now()
    const statuses = await Promise.all(
      Array.from({ length: UPLOADS }, async (_, i) => {
        const form = new FormData()
        form.append('image', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'photo.jpg')
        const endpoint = i % 2 ? '/api/face-blur/blur/' : '/api/remove-bg/'
        if (i % 2) form.append('blur', '32')
        const response = await fetch(base + endpoint, { method: 'POST', body: form })
        await response.arrayBuffer()
        return response.status
      }),
    )
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    sample()
    const serverHwmMb = Math.round((hwm.get(pid) ?? 0) / 1024)
    const childrenHwmMb = Math.round([...hwm].filter(([p]) => p !== pid).reduce((sum, [, kb]) => sum + kb, 0) / 1024)
    const result = {
      uploads: UPLOADS,
      upload: `${(jpeg.length / 1e6).toFixed(1)} MB JPEG, 12 MP; 4 × /api/remove-bg/, 4 × /api/face-blur/blur/ at once`,
      statuses,
      seconds: Math.round(seconds * 10) / 10,
      idleRssMb: Math.round(idleKb / 1024),
      serverVmHwmMb: serverHwmMb,
      childrenVmHwmMb: childrenHwmMb,
      /** Server peak plus each child's own peak: an upper bound of the service's peak. */
      serviceVmHwmMb: serverHwmMb + childrenHwmMb,
      sampledPeakTreeRssMb: Math.round(peakTreeRssKb / 1024),
      budgetMb: BUDGET_MB,
      withinBudget: serverHwmMb + childrenHwmMb < BUDGET_MB,
    }
    console.error(
      `  service memory, ${UPLOADS} concurrent 12 MP uploads: VmHWM ${result.serviceVmHwmMb} MB (server ${serverHwmMb}, children ${childrenHwmMb}), answers ${statuses.join(' ')}, ${result.seconds} s`,
    )
    return result
  } finally {
    server.kill('SIGTERM')
    await new Promise((resolve) => server.once('exit', resolve))
    rmSync(dataDir, { recursive: true, force: true })
  }
}
