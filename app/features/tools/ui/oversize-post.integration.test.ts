// A tool page posted without JavaScript with a file past the tool's limit (issue 21): refused from the
// declared Content-Length before any of the body is read, worded "This file can't be used: …", with
// status 413 and the page's own result shape, so the page is drawn again with the message.
import { once } from 'node:events'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
// The adapter's own Request builder, as server.ts's handler uses it: the body is a lazy stream of the socket.
import { createRemixRequest } from '@remix-run/express/dist/server.js'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { stopBoss } from '~/features/queue/boss.server'
import { MEGABYTE, TOOLS } from '~/catalog/tools'
import { action as removerAction } from '~/routes/tools.background-remover'
import { action as enhancerAction } from '~/routes/tools.image-enhancer'
import { BASE, readResult, routeArgs } from '../../../../tests/support/requests'
import { toolBodyLimit } from '../upload.server'
import { unusableFileMessage } from './tool-messages'
import { workspacePhase } from './workspace-state'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

const servers: http.Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) server.closeAllConnections(), server.close()
})

/** A multipart post whose body counts every chunk anyone pulls from it, and never ends by itself. */
function countingPost(path: string, declared: number) {
  const read = { chunks: 0 }
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        read.chunks++
        controller.enqueue(new Uint8Array(1024))
      },
    },
    { highWaterMark: 0 },
  )
  const request = new Request(BASE + path, {
    method: 'POST',
    headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(declared) },
    body,
    duplex: 'half',
  } as RequestInit)
  return { request, read }
}

describe('an oversize upload to a tool page, without JavaScript', () => {
  it('is refused from its Content-Length: 413, the page words, not one chunk of the body read', async () => {
    const declared = toolBodyLimit('image-enhancer', false) + 1
    const { request, read } = countingPost('/tools/image-enhancer', declared)
    const answer = await readResult(await enhancerAction(routeArgs(request)))
    expect(answer.status).toBe(413)
    expect(answer.body).toEqual({ ok: false, status: 413, error: "This file can't be used: file too large (max 20MB).", remaining: null })
    expect(read.chunks).toBe(0)
    // No cookie: no visitor was made for a refusal.
    expect(answer.headers.get('set-cookie')).toBeNull()
    // The page draws it as a refused file (the drop target and its message), not as a failed run.
    expect(
      workspacePhase({
        tool: TOOLS['image-enhancer'],
        missingModels: [],
        checking: false,
        rejection: null,
        status: 'idle',
        progress: null,
        facesFound: null,
        needsSignIn: false,
        pageResult: answer.body,
        job: null,
        balance: 5,
        cost: 2,
      }),
    ).toBe('rejected')
  })

  it('leaves a post within the limit to the run (the remover counts its optional background image)', async () => {
    // 13 MB could be a 12 MB photo and a background image: not refused from the length alone.
    expect(toolBodyLimit('background-remover', true)).toBe(2 * TOOLS['background-remover'].maxMegabytes * MEGABYTE + 64 * 1024)
    const { request } = countingPost('/tools/background-remover', toolBodyLimit('background-remover', true) + 1)
    const answer = await readResult(await removerAction(routeArgs(request)))
    expect(answer.status).toBe(413)
    expect(answer.body.error).toBe(unusableFileMessage('File too large (max 12MB)'))
  })

  it('answers at once over HTTP when a client declares a gigabyte and sends a kilobyte', async () => {
    const app = express()
    app.post('/tools/image-enhancer', async (req, res) => {
      const answer = await readResult(await enhancerAction(routeArgs(createRemixRequest(req, res))))
      res.status(answer.status)
      answer.headers.forEach((value, name) => res.setHeader(name, value))
      res.json(answer.body)
    })
    const server = app.listen(0, '127.0.0.1')
    servers.push(server)
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    const answer = await new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/tools/image-enhancer',
          method: 'POST',
          headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(1024 * MEGABYTE) },
        },
        (response) => {
          const chunks: Buffer[] = []
          response.on('data', (c: Buffer) => chunks.push(c))
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString(), connection: response.headers.connection }),
          )
        },
      )
      request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)))
      // A kilobyte of the declared gigabyte, and the request left open: only an answer from the headers can arrive.
      request.write(Buffer.alloc(1024, 0x2d))
    })
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.body).error).toBe("This file can't be used: file too large (max 20MB).")
    // Far past the limit, the connection is closed rather than drained.
    expect(answer.connection).toBe('close')
  })
})
