// The operator channel: how `npm run credits` and later operator scripts reach a running studio,
// so their writes go through the studio's own database handle (on PGlite nothing else may open the
// data folder). A Unix socket in DATA_DIR/operator/, a folder only the studio's user can enter
// (0700; the socket itself 0600): whoever can connect can already read the data folder.
// One request per connection: a JSON line {command, args}; one JSON line back, then the end.
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { getDb } from '~/db/db.server'
import { migrateToLatest } from '~/db/migrate.server'
import { logger } from '~/utils/logger.server'
import { OperatorError, runOperatorCommand } from './commands.server'

export type OperatorAnswer =
  | { ok: true; result: unknown }
  | { ok: false; error: string; kind: 'refused' | 'invalid' | 'failed' }

/** A request is a command name and its arguments; nothing an operator sends is anywhere near this. */
const MAX_REQUEST_BYTES = 64 * 1024
/** Unix socket paths are limited to 107 bytes on Linux (104 on macOS). */
const MAX_SOCKET_PATH_BYTES = 100
const IDLE_TIMEOUT_MS = 60_000

export function operatorSocketPath(dataDir: string): string {
  return path.join(dataDir, 'operator', 'operator.sock')
}

async function answer(line: string): Promise<OperatorAnswer> {
  let request: unknown
  try {
    request = JSON.parse(line)
  } catch {
    return { ok: false, error: 'The request is not JSON.', kind: 'invalid' }
  }
  const { command, args } = (request ?? {}) as { command?: unknown; args?: unknown }
  if (typeof command !== 'string') return { ok: false, error: 'The request names no command.', kind: 'invalid' }
  try {
    const result = await runOperatorCommand(command, args ?? {})
    logger.info({ command }, 'operator command done')
    return { ok: true, result }
  } catch (error) {
    if (error instanceof OperatorError) return { ok: false, error: error.message, kind: error.kind }
    logger.error({ err: error, command }, 'operator command failed')
    return { ok: false, error: `The command failed in the studio: ${(error as Error).message}`, kind: 'failed' }
  }
}

function serve(socket: net.Socket) {
  let received = ''
  socket.setEncoding('utf8')
  socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy())
  socket.on('error', () => socket.destroy())
  const onData = (chunk: string) => {
    received += chunk
    if (Buffer.byteLength(received) > MAX_REQUEST_BYTES) {
      socket.off('data', onData)
      socket.end(JSON.stringify({ ok: false, error: 'The request is too large.', kind: 'invalid' } satisfies OperatorAnswer) + '\n')
      return
    }
    const end = received.indexOf('\n')
    if (end === -1) return
    socket.off('data', onData)
    void answer(received.slice(0, end)).then((reply) => socket.end(JSON.stringify(reply) + '\n'))
  }
  socket.on('data', onData)
  // The client hung up before sending a whole request: nothing to answer.
  socket.on('end', () => {
    if (!received.includes('\n')) socket.destroy()
  })
}

/** Sends one command to the studio listening on `socketPath`; null when none listens there. */
export function sendOperatorCommand(socketPath: string, command: string, args: unknown): Promise<OperatorAnswer | null> {
  if (!existsSync(socketPath)) return Promise.resolve(null)
  return new Promise((resolve, reject) => {
    let connected = false
    let reply = ''
    const socket = net.createConnection(socketPath)
    socket.setEncoding('utf8')
    socket.on('connect', () => {
      connected = true
      socket.end(JSON.stringify({ command, args }) + '\n')
    })
    socket.on('data', (chunk: string) => (reply += chunk))
    socket.on('end', () => {
      try {
        resolve(JSON.parse(reply) as OperatorAnswer)
      } catch {
        reject(new Error(`The studio on ${socketPath} sent an answer that is not JSON: ${JSON.stringify(reply.slice(0, 200))}`))
      }
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A socket file left behind by a studio that did not stop cleanly: nobody is listening.
      if (!connected && (error.code === 'ECONNREFUSED' || error.code === 'ENOENT')) resolve(null)
      else reject(new Error(`Cannot reach the studio's operator channel ${socketPath}: ${error.message}`))
    })
  })
}

/**
 * Runs an operator command where it belongs: in the running studio when one listens on DATA_DIR's
 * operator channel, else here, on this process's own database handle (which, on PGlite, takes
 * the data folder's lock and so refuses while a studio holds it).
 */
export async function executeOperatorCommand(dataDir: string, command: string, args: unknown): Promise<unknown> {
  const reply = await sendOperatorCommand(operatorSocketPath(dataDir), command, args)
  if (reply) {
    if (reply.ok) return reply.result
    if (reply.kind === 'failed') throw new Error(reply.error)
    throw new OperatorError(reply.error, reply.kind)
  }
  await migrateToLatest(getDb())
  return runOperatorCommand(command, args)
}

function somebodyListens(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createConnection(socketPath)
    probe.on('connect', () => {
      probe.destroy()
      resolve(true)
    })
    probe.on('error', () => resolve(false))
  })
}

export interface OperatorChannel {
  socketPath: string
  close(): Promise<void>
}

/** Listens for operator commands; null (with a warning) when the channel cannot be opened. */
export async function startOperatorChannel(dataDir: string): Promise<OperatorChannel | null> {
  const socketPath = operatorSocketPath(dataDir)
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    logger.warn({ socketPath }, 'operator channel off: the DATA_DIR path is too long for a Unix socket; stop the studio to run operator commands')
    return null
  }
  const folder = path.dirname(socketPath)
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  chmodSync(folder, 0o700)
  if (existsSync(socketPath)) {
    // Another studio on this DATA_DIR (possible with PostgreSQL) keeps its channel; a dead one's file goes.
    if (await somebodyListens(socketPath)) {
      logger.warn({ socketPath }, 'operator channel off: another studio already answers on this DATA_DIR')
      return null
    }
    rmSync(socketPath, { force: true })
  }
  // The client ends its side once the request is sent; ours stays open for the answer.
  const server = net.createServer({ allowHalfOpen: true }, serve)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(socketPath, () => {
      server.off('error', reject)
      resolve()
    })
  })
  chmodSync(socketPath, 0o600)
  logger.info({ socketPath }, 'operator channel listening')
  return {
    socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        rmSync(socketPath, { force: true })
      }),
  }
}
