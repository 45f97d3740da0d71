// The web process killed with SIGKILL halfway through a large upload (docs/decisions/177), for real: a studio
// process of its own (tests/support/studio-child.ts: server.ts's Express app, web + worker, on the embedded
// PGlite in a data folder of its own, as `npm start` runs by default) receives a multipart upload over a raw
// socket; once the server has taken the request (its `100 Continue`, sent only for a body the path accepts)
// and half the body is sent, the process is killed. Nothing may be left: no job row, no charge, no file in the
// data folder beyond the database's own (an upload is held in memory, never written to disk), and the
// studio started again on the same folder (its lock taken over from the dead process, PGlite recovered)
// serves a run. Runs once, in the PGlite project: it brings its own database either way.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, describe, expect, inject, it, vi } from 'vitest'
import { pgliteOptions } from '~/db/db.server'
import { StudioChildren, exited, getJson, type StudioChild } from '../../../tests/support/child-processes'
import { fixture } from '../../../tests/support/tools'

const onPglite = process.env.TEST_DB === 'pglite'
const dataDir = path.resolve(`tests/.tmp/faults_upload_${process.pid}`)
const children = new StudioChildren(() => ({ NODE_ENV: 'test', LOG_LEVEL: 'warn', DATA_DIR: dataDir, WORKER_CONCURRENCY: '1', DATABASE_URL: '' }))

async function startStudio(name: string): Promise<{ child: StudioChild; port: number }> {
  const child = children.start('tests/support/studio-child.ts', name)
  let port = 0
  await vi.waitFor(
    () => {
      if (child.process.exitCode !== null) throw new Error(`the studio exited (${child.process.exitCode}): ${child.lines.join('\n')}`)
      const line = child.lines.find((l) => l.startsWith('{"listening"'))
      expect(line).toBeDefined()
      port = JSON.parse(line!).listening
    },
    { timeout: 400_000, interval: 200 },
  )
  return { child, port }
}

/** Every file of the data folder outside the database itself, with its size. */
function filesOutsideDatabase(): string[] {
  const found: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      const relative = path.relative(dataDir, full)
      if (relative === 'db') continue
      if (entry.isDirectory()) walk(full)
      else found.push(`${relative} ${entry.isSocket() ? 'socket' : statSync(full).size}`)
    }
  }
  walk(dataDir)
  return found.sort()
}

function received(socket: Socket, pattern: RegExp): Promise<string> {
  let text = ''
  return new Promise((resolve, reject) => {
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1')
      if (pattern.test(text)) resolve(text)
    })
    socket.on('close', () => reject(new Error(`closed before ${pattern}: ${text}`)))
    socket.on('error', () => {})
  })
}

function write(socket: Socket, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(bytes, (error) => (error ? reject(error) : resolve())))
}

describe.runIf(onPglite)('the web process killed mid-upload (a real studio process on PGlite)', () => {
  afterAll(async () => {
    await children.killAll()
    rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)

  it('SIGKILL halfway through the body: no job, no charge, no file left; started again on the same folder it serves', async () => {
    rmSync(dataDir, { recursive: true, force: true })
    // The data folder starts from the suite's migrated database (a fresh one takes minutes on a busy machine).
    mkdirSync(dataDir, { recursive: true })
    const seed = new PGlite(path.join(dataDir, 'db'), { ...pgliteOptions(), loadDataDir: new Blob([readFileSync(inject('pgliteDump'))]) })
    await seed.waitReady
    await seed.close()
    const first = await startStudio('web-a')
    await vi.waitFor(async () => expect((await getJson(`http://127.0.0.1:${first.port}/readyz`)).status).toBe(200), { timeout: 60_000, interval: 250 })
    const before = filesOutsideDatabase()

    // An 11 MB upload (the remover takes 12) from a visitor: headers, the 100 Continue, then half the body.
    const boundary = 'faults-boundary'
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`)
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
    const photo = fixture('photos/noface-rocket.jpg')
    const fileBytes = 11 * 1024 * 1024
    const length = head.length + fileBytes + tail.length
    const socket = connect(first.port, '127.0.0.1')
    const continued = received(socket, /^HTTP\/1\.1 100 Continue\r\n\r\n/)
    await write(
      socket,
      Buffer.from(
        `POST /api/remove-bg/ HTTP/1.1\r\nHost: 127.0.0.1:${first.port}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
          `Content-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`,
      ),
    )
    await continued
    await write(socket, head)
    // Half the file: the photo's real bytes first, then filler. Each write waits for the socket to take it.
    await write(socket, photo)
    const chunk = Buffer.alloc(256 * 1024, 7)
    for (let sent = photo.length; sent < fileBytes / 2; sent += chunk.length) await write(socket, chunk)
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    first.child.process.kill('SIGKILL')
    expect(await exited(first.child)).toEqual({ code: null, signal: 'SIGKILL' })
    await closed

    // What the dead process left: read with the database's own engine, nobody else holding the folder.
    const db = new PGlite(path.join(dataDir, 'db'), pgliteOptions())
    try {
      const jobs = await db.query<{ n: number }>('select count(*)::int as n from tool_jobs')
      const charges = await db.query<{ n: number }>("select count(*)::int as n from credit_transactions where kind = 'consume'")
      const runs = await db.query<{ n: number }>('select count(*)::int as n from tool_runs')
      expect({ jobs: jobs.rows[0]!.n, charges: charges.rows[0]!.n, runs: runs.rows[0]!.n }).toEqual({ jobs: 0, charges: 0, runs: 0 })
    } finally {
      await db.close()
    }
    // No upload on disk, now or for a sweep to find: the same files as before the upload (the lock names the dead pid).
    expect(filesOutsideDatabase()).toEqual(before)

    // Started again on the same folder: the lock is taken over, the database opens, a run is served and charged once.
    const second = await startStudio('web-b')
    await vi.waitFor(async () => expect((await getJson(`http://127.0.0.1:${second.port}/readyz`)).status).toBe(200), { timeout: 60_000, interval: 250 })
    const form = new FormData()
    form.append('image', new File([photo], 'rocket.jpg', { type: 'image/jpeg' }))
    const answer = await fetch(`http://127.0.0.1:${second.port}/api/remove-bg/`, { method: 'POST', body: form })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('Content-Type')).toBe('image/png')
    expect(answer.headers.get('X-Credits-Charged')).toBe('1')
    expect(Buffer.from(await answer.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG')
  }, 1_000_000)
})
