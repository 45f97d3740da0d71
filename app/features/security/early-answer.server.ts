// An answer given before the request's body has all arrived (a 413 from the declared length, the
// multipart reader stopped past a file's limit, a refused key) must reach the client instead of a
// reset (decision 161). Two things made it a reset:
// - A reader that stops early cancels Remix's body stream, which destroys the request and with it
//   the socket, before the answer is even written.
// - After an answer with `Connection: close`, Node ends the socket and destroys it as soon as its
//   FIN is out; the client's next bytes then meet a closed socket, the kernel answers them with a
//   reset, and the client (curl, fetch, a browser that sends the whole form before it reads)
//   loses the answer it had not read yet.
// So the rest of an unread body is read and thrown away, up to a bound, and only then is the socket
// closed. With `Expect: 100-continue`, the 100 is sent only for a body the path takes: one declared
// past the path's limit gets the route's own 413 instead, and the client never sends it.
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { RequestHandler } from 'express'
import { MEGABYTE } from '~/catalog/tools'

/**
 * The most the server reads and discards of a body after it has answered (or stopped reading it):
 * more than the largest form a browser posts to a tool page past its limit (a 20 MB tool, two files),
 * so the browser, which reads the answer only once it has sent everything, still gets it. Past this
 * the connection is closed.
 */
export const MAX_DISCARDED_BYTES = 64 * MEGABYTE
/** A client that sends nothing more for this long after its answer is done with: the socket is closed. */
export const DISCARD_IDLE_MS = 10_000

function hasBody(req: IncomingMessage): boolean {
  return Boolean(req.headers['transfer-encoding']) || Number(req.headers['content-length'] ?? 0) > 0
}

/**
 * Reads and discards what is left of the body. When Node is already closing the connection (an
 * answer with `Connection: close`), its destroy-on-FIN is cancelled and the socket is destroyed
 * here once the body has ended, the client has gone, the bound is passed or the client falls silent.
 */
function discardRest(req: IncomingMessage, socket: Socket) {
  const closing = socket.writableEnded
  // Node's destroySoon(): end() now, destroy() on 'finish'. Only the destroy is put off.
  if (closing) socket.removeListener('finish', socket.destroy)
  let discarded = 0
  const close = () => {
    clearTimeout(idle)
    socket.destroy()
  }
  const idle = setTimeout(close, DISCARD_IDLE_MS)
  idle.unref()
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.byteLength
    if (discarded > MAX_DISCARDED_BYTES) return close()
    idle.refresh()
  })
  // The whole body arrived: a kept connection serves its next request; a closing one closes now.
  req.once('end', () => (closing ? close() : clearTimeout(idle)))
  socket.once('close', () => clearTimeout(idle))
  req.resume()
}

/**
 * Express middleware, first in line: a body a route stopped reading is discarded, not torn down with
 * its socket, and whatever is left of it after the answer is discarded up to MAX_DISCARDED_BYTES.
 */
export const keepConnectionForTheAnswer: RequestHandler = (req, res, next) => {
  if (!hasBody(req)) return next()
  let discarding = false
  const discard = () => {
    if (discarding || req.complete || req.socket.destroyed) return
    discarding = true
    discardRest(req, req.socket)
  }
  // Remix's body stream destroys the request when its reader cancels (busboy past a limit,
  // a bounded text read): the socket must outlive that to carry the answer. A socket already gone
  // (the client left, a server timeout) still ends its request, so nothing waits on it forever.
  const destroy = req.destroy.bind(req)
  req.destroy = ((error?: Error) => {
    if (req.socket.destroyed) return destroy(error)
    req.resume()
    return req
  }) as typeof req.destroy
  // Runs after Node's own 'finish' handling, which has ended the socket if it means to close it.
  res.once('finish', discard)
  next()
}

/**
 * `Expect: 100-continue`: the 100 is sent only when the declared length is within what the path
 * takes (`limitFor`); past it no 100 is sent, the request goes on to the route, which refuses it
 * from its headers, and the client never sends the body. A body of unknown length gets its 100.
 */
export function continueOnlyWithinLimits(server: Server, limitFor: (req: IncomingMessage) => number) {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers['content-length'] ?? '')
    if (!(Number.isFinite(declared) && declared > limitFor(req))) res.writeContinue()
    server.emit('request', req, res)
  })
}
