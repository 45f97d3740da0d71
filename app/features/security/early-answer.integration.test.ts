// Issue 34, item 1: a body the studio will not take gets a 413 with the studio's words, never a reset,
// through the real server (server.ts's Express application, every middleware, Remix's handler) and
// raw sockets: with `Expect: 100-continue`, with a Content-Length and no Expect, and chunked. Each
// time the server keeps serving: a second request on a new connection answers.
import type { IncomingMessage } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MEGABYTE, TOOLS } from '~/catalog/tools'
import { createApiKey } from '~/features/api-keys/keys.server'
import { createVerifiedUser } from '~/features/auth/testing.server'
import { stopBoss } from '~/features/queue/boss.server'
import { bodyLimitFor, BODY_TOO_LARGE_MESSAGE } from '~/features/security/body-limit.server'
import { toolFormBodyLimit } from '~/features/tools/page-action.server'
import { fileTooLargeMessage } from '~/features/tools/upload.server'
import * as login from '~/routes/api.auth.login'
import * as batches from '~/routes/api.batches._index'
import * as balance from '~/routes/api.credits.balance'
import * as blurrer from '~/routes/api.face-blur.blur'
import * as restorer from '~/routes/api.face-retouch.restore'
import * as enhancer from '~/routes/api.image-scaler.scale'
import * as jobs from '~/routes/api.jobs._index'
import * as remover from '~/routes/api.remove-bg'
import * as converter from '~/routes/api.svg2image.convert'
import { photoOfSize } from '../../../tests/support/photo-sizes'
import { startStudio, type RunningStudio } from '../../../tests/support/studio-server'

const REMOVER = 'background-remover' as const
const TOO_LARGE = fileTooLargeMessage(REMOVER)
let studio: RunningStudio
/** A real photo one megabyte past the remover's 12 MB. */
let oversizePhoto: Buffer

beforeAll(async () => {
  studio = await startStudio({
    'api/remove-bg': remover,
    'api/face-blur/blur': blurrer,
    'api/face-retouch/restore': restorer,
    'api/image-scaler/scale': enhancer,
    'api/svg2image/convert': converter,
    'api/jobs': jobs,
    'api/batches': batches,
    'api/auth/login': login,
    'api/credits/balance': balance,
  })
  oversizePhoto = await photoOfSize((TOOLS[REMOVER].maxMegabytes + 1) * MEGABYTE)
})

afterAll(async () => {
  await studio.close()
  await stopBoss({ timeoutMs: 5_000 })
})

const BOUNDARY = 'facet-boundary'

/** The remover's form around a photo, as curl -F image=@photo.jpg sends it. */
function removerForm(photo: Buffer): Buffer {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${TOOLS[REMOVER].fileField}"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`
  return Buffer.concat([Buffer.from(head), photo, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)])
}

interface Answer {
  /** Every status line received, interim ones (100 Continue) included. */
  statuses: number[]
  headers: Record<string, string>
  body: string
  /** The socket failed (ECONNRESET, EPIPE) before the final answer was read whole. */
  failure: string | null
}

/**
 * One raw HTTP/1.1 exchange: `head` is written, then `body` (`before` decides when: at once, or once
 * a 100 Continue arrives, or never), in 64 KB writes with back-pressure, stopping when the final
 * answer has arrived. Resolves when the final answer is read whole and the server has closed or the
 * client has finished.
 */
function exchange(head: string, body: Buffer | null, options: { chunked?: boolean; waitFor100?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const socket: Socket = connect(studio.port, studio.host)
    let received = Buffer.alloc(0)
    const answer: Answer = { statuses: [], headers: {}, body: '', failure: null }
    let finalRead = false
    let sending = false
    let settled = false
    const settle = () => {
      if (settled) return
      settled = true
      socket.destroy()
      resolve(answer)
    }

    const send = async () => {
      if (sending || !body) return
      sending = true
      for (let at = 0; at < body.length && !finalRead && !socket.destroyed; at += 64 * 1024) {
        const piece = body.subarray(at, at + 64 * 1024)
        const framed = options.chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece
        if (!socket.write(framed)) await new Promise((resume) => socket.once('drain', resume))
      }
      if (options.chunked && !socket.destroyed) socket.write('0\r\n\r\n')
    }

    const parse = () => {
      for (;;) {
        const end = received.indexOf('\r\n\r\n')
        if (end < 0) return
        const lines = received.subarray(0, end).toString('latin1').split('\r\n')
        const status = Number(lines[0]!.split(' ')[1])
        if (status === 100) {
          answer.statuses.push(100)
          received = received.subarray(end + 4)
          void send()
          continue
        }
        const headers: Record<string, string> = {}
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(':')
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
        }
        const body = headers['transfer-encoding'] === 'chunked' ? dechunk(received.subarray(end + 4)) : received.subarray(end + 4)
        if (!body || body.length < Number(headers['content-length'] ?? 0)) return
        answer.statuses.push(status)
        answer.headers = headers
        answer.body = body.subarray(0, Number(headers['content-length'] ?? body.length)).toString('utf8')
        finalRead = true
        settle()
        return
      }
    }

    socket.on('data', (chunk: Buffer) => {
      if (finalRead) return
      received = Buffer.concat([received, chunk])
      parse()
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!finalRead) answer.failure = error.code ?? error.message
      settle()
    })
    socket.on('close', settle)
    socket.write(head)
    if (!options.waitFor100) void send()
  })
}

/** A chunked body's content, or null until its last chunk has arrived. */
function dechunk(bytes: Buffer): Buffer | null {
  const parts: Buffer[] = []
  for (let at = 0; ; ) {
    const lineEnd = bytes.indexOf('\r\n', at)
    if (lineEnd < 0) return null
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16)
    if (size === 0) return Buffer.concat(parts)
    if (bytes.length < lineEnd + 2 + size + 2) return null
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
}

function postHead(path: string, headers: Record<string, string>): string {
  const lines = [`POST ${path} HTTP/1.1`, `Host: ${studio.host}:${studio.port}`, ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`)]
  return `${lines.join('\r\n')}\r\n\r\n`
}

/** The server still answers: a fresh connection gets the visitor's balance. */
async function stillServing() {
  const answer = await fetch(`${studio.url}/api/credits/balance/`)
  expect(answer.status).toBe(200)
  expect(await answer.json()).toHaveProperty('balance')
}

describe('a body past the limit, through the real server and raw sockets', () => {
  it('Expect: 100-continue with a length past the upload\'s limit: a 413 with the studio\'s words instead of 100 Continue', async () => {
    const declared = toolFormBodyLimit(REMOVER) + 1
    const answer = await exchange(
      postHead('/api/remove-bg/', { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(declared), Expect: '100-continue' }),
      removerForm(oversizePhoto),
      { waitFor100: true },
    )
    expect(answer.failure).toBeNull()
    expect(answer.statuses).toEqual([413])
    expect(JSON.parse(answer.body).error).toBe(TOO_LARGE)
    await stillServing()
  })

  it('Expect: 100-continue past the limit of every upload endpoint: 413 with its words, no 100', async () => {
    // A signed-in caller (an API key): the SVG converter refuses visitors before anything else.
    const { user } = await createVerifiedUser()
    const made = await createApiKey(user.id, { name: 'limits', environment: 'live' })
    if (!made.ok) throw new Error('no key')
    const paths = [...Object.values(TOOLS).map((t) => t.apiPath), '/api/jobs/', '/api/batches/']
    for (const path of paths) {
      const type = `multipart/form-data; boundary=${BOUNDARY}`
      const declared = bodyLimitFor(path, type).bytes + 1
      const head = postHead(path, { 'Content-Type': type, 'Content-Length': String(declared), Expect: '100-continue', Authorization: `Bearer ${made.key.key}` })
      const answer = await exchange(head, Buffer.alloc(0), { waitFor100: true })
      expect(answer.failure, path).toBeNull()
      expect(answer.statuses, path).toEqual([413])
      expect(JSON.parse(answer.body).error, path).toMatch(/too large/i)
    }
    await stillServing()
  })

  it('Expect: 100-continue to a small-body endpoint past 1 MB: 413 with its words, no 100', async () => {
    const answer = await exchange(
      postHead('/api/auth/login/', { 'Content-Type': 'application/json', 'Content-Length': String(2 * MEGABYTE), Expect: '100-continue' }),
      Buffer.alloc(2 * MEGABYTE, 0x20),
      { waitFor100: true },
    )
    expect(answer.failure).toBeNull()
    expect(answer.statuses).toEqual([413])
    expect(JSON.parse(answer.body).error).toBe(BODY_TOO_LARGE_MESSAGE)
    await stillServing()
  })

  it('Expect: 100-continue within the body limit, with a 13 MB photo: 100, the photo, then a 413 instead of a reset', async () => {
    const form = removerForm(oversizePhoto)
    const answer = await exchange(
      postHead('/api/remove-bg/', { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(form.length), Expect: '100-continue' }),
      form,
      { waitFor100: true },
    )
    expect(answer.failure).toBeNull()
    expect(answer.statuses).toEqual([100, 413])
    expect(JSON.parse(answer.body).error).toBe(TOO_LARGE)
    await stillServing()
  })

  it('a Content-Length and no Expect (curl -H "Expect:", fetch): the 13 MB photo is answered with a 413, not a reset', async () => {
    const form = removerForm(oversizePhoto)
    const answer = await exchange(postHead('/api/remove-bg/', { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(form.length) }), form)
    expect(answer.failure).toBeNull()
    expect(answer.statuses).toEqual([413])
    expect(JSON.parse(answer.body).error).toBe(TOO_LARGE)
    await stillServing()
  })

  it('a chunked body is counted as it arrives: the 13 MB photo gets a 413, not a reset', async () => {
    const answer = await exchange(
      postHead('/api/remove-bg/', { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Transfer-Encoding': 'chunked' }),
      removerForm(oversizePhoto),
      { chunked: true },
    )
    expect(answer.failure).toBeNull()
    expect(answer.statuses).toEqual([413])
    expect(JSON.parse(answer.body).error).toBe(TOO_LARGE)
    await stillServing()
  })

  it('a client that leaves in the middle of its upload ends its request on the server: nothing waits on it', async () => {
    const form = removerForm(oversizePhoto)
    const ended = new Promise<void>((resolve) =>
      studio.server.once('request', (req: IncomingMessage) => {
        req.once('close', () => resolve())
        // The route is reading the photo (the first megabytes have arrived): the client leaves.
        let read = 0
        req.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > 2 * MEGABYTE) client.destroy()
        })
      }),
    )
    const client = connect(studio.port, studio.host)
    client.on('error', () => {})
    client.write(postHead('/api/remove-bg/', { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(form.length) }))
    client.write(form.subarray(0, 4 * MEGABYTE))
    await ended
    await stillServing()
  })

  it('fetch (undici) sending the 13 MB photo reads the 413, not ECONNRESET', async () => {
    const form = new FormData()
    form.append(TOOLS[REMOVER].fileField, new Blob([new Uint8Array(oversizePhoto)], { type: 'image/jpeg' }), 'photo.jpg')
    const answer = await fetch(`${studio.url}/api/remove-bg/`, { method: 'POST', body: form })
    expect(answer.status).toBe(413)
    expect((await answer.json()).error).toBe(TOO_LARGE)
    await stillServing()
  })
})
