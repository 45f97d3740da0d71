// The operator channel: how `npm run credits` and later operator scripts reach a running studio,
// so their writes go through the studio's own database handle (on PGlite nothing else may open the
// data folder). A Unix socket in DATA_DIR/operator/, a folder only the studio's user can enter
// (0700; the socket itself 0600): whoever can connect can already read the data folder.
// One request per connection: a JSON line {command, args, expect}; one JSON line back, then the end.
// Every answer names the studio and its database; a request that expects the embedded database in a
// data folder is refused by a studio on any other database (decision 163).
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { config } from '~/config.server'
import { databaseHandle, getDb, type DB } from '~/db/db.server'
import { migrateToLatest } from '~/db/migrate.server'
import { logger } from '~/utils/logger.server'
import { OperatorError, runOperatorCommand } from './commands.server'
import {
  describeEmbedded,
  describePostgres,
  describeStudio,
  studioMismatch,
  type OperatorTarget,
  type StudioIdentity,
} from './studio.server'

export type OperatorAnswer =
  | { ok: true; result: unknown; studio: StudioIdentity }
  | { ok: false; error: string; kind: 'refused' | 'invalid' | 'failed'; studio?: StudioIdentity }

/** What a client may ask of the studio besides the command: that it runs on this data folder's embedded database. */
export type OperatorExpectation = { kind: 'embedded'; dataDir: string }

/** Runs a command in the studio; the real command table by default (tests watch what reaches a studio). */
export type CommandRunner = (command: string, args: unknown) => Promise<unknown>

/** A request is a command name and its arguments; nothing an operator sends is anywhere near this. */
const MAX_REQUEST_BYTES = 64 * 1024
/** Unix socket paths are limited to 107 bytes on Linux (104 on macOS). */
const MAX_SOCKET_PATH_BYTES = 100
const IDLE_TIMEOUT_MS = 60_000

export function operatorSocketPath(dataDir: string): string {
  return path.join(dataDir, 'operator', 'operator.sock')
}

/** This process as a studio: its address, pid and database (PostgreSQL's without its password). */
export function thisStudio(): StudioIdentity {
  const handle = databaseHandle()
  const c = config()
  return {
    publicUrl: c.PUBLIC_URL,
    pid: process.pid,
    database:
      handle.kind === 'pglite'
        ? { kind: 'embedded', dataDir: c.dataDir }
        : { kind: 'postgres', description: describePostgres(handle.connectionString ?? c.DATABASE_URL ?? '') },
  }
}

interface Studio {
  identity: StudioIdentity
  socketPath: string
  run: CommandRunner
}

async function answer(line: string, studio: Studio): Promise<OperatorAnswer> {
  const said = { studio: studio.identity }
  let request: unknown
  try {
    request = JSON.parse(line)
  } catch {
    return { ok: false, error: 'The request is not JSON.', kind: 'invalid', ...said }
  }
  const { command, args, expect } = (request ?? {}) as { command?: unknown; args?: unknown; expect?: Partial<OperatorExpectation> }
  if (typeof command !== 'string') return { ok: false, error: 'The request names no command.', kind: 'invalid', ...said }
  if (expect !== undefined) {
    if (expect?.kind !== 'embedded' || typeof expect.dataDir !== 'string') return { ok: false, error: 'The request expects no database this studio knows.', kind: 'invalid', ...said }
    const mismatch = studioMismatch(studio.identity, expect.dataDir, studio.socketPath)
    if (mismatch) {
      logger.warn({ command, expected: expect.dataDir }, 'operator command refused: meant for another database')
      return { ok: false, error: mismatch, kind: 'refused', ...said }
    }
  }
  try {
    const result = await studio.run(command, args ?? {})
    logger.info({ command }, 'operator command done')
    return { ok: true, result, ...said }
  } catch (error) {
    if (error instanceof OperatorError) return { ok: false, error: error.message, kind: error.kind, ...said }
    logger.error({ err: error, command }, 'operator command failed')
    return { ok: false, error: `The command failed in the studio: ${(error as Error).message}`, kind: 'failed', ...said }
  }
}

function serve(socket: net.Socket, studio: Studio) {
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
    void answer(received.slice(0, end), studio).then((reply) => socket.end(JSON.stringify(reply) + '\n'))
  }
  socket.on('data', onData)
  // The client hung up before sending a whole request: nothing to answer.
  socket.on('end', () => {
    if (!received.includes('\n')) socket.destroy()
  })
}

/**
 * Sends one command to the studio listening on `socketPath`; null when none listens there. With
 * `expect`, a studio on any other database refuses instead of running it.
 */
export function sendOperatorCommand(socketPath: string, command: string, args: unknown, expect?: OperatorExpectation): Promise<OperatorAnswer | null> {
  if (!existsSync(socketPath)) return Promise.resolve(null)
  return new Promise((resolve, reject) => {
    let connected = false
    let reply = ''
    const socket = net.createConnection(socketPath)
    socket.setEncoding('utf8')
    socket.on('connect', () => {
      connected = true
      socket.end(JSON.stringify({ command, args, expect }) + '\n')
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

/** A command's answer and where it acted: the studio and database, in words for the operator. */
export interface OperatorOutcome {
  result: unknown
  actedOn: string
}

/**
 * Runs an operator command on the database its environment names (`target`, from operatorTarget):
 * - PostgreSQL (DATABASE_URL): on that database, directly, whatever socket DATA_DIR holds;
 * - the embedded database in DATA_DIR: in the studio answering on its operator channel, which
 *   refuses when it runs on another database; with none answering, on this process's own handle
 *   (which takes the data folder's lock), and only when that database exists: an empty folder is
 *   not a studio, and a grant there would land nowhere.
 * `db`: the handle for PostgreSQL or the embedded database opened here (tests give theirs).
 */
export async function executeOperatorCommand(target: OperatorTarget, command: string, args: unknown, db?: DB): Promise<OperatorOutcome> {
  if (target.kind === 'postgres') {
    const own = db ?? getDb()
    await migrateToLatest(own)
    return runHere(command, args, own, `${describePostgres(target.connectionString)}, connected to directly (DATABASE_URL)`)
  }
  const socketPath = operatorSocketPath(target.dataDir)
  const reply = await sendOperatorCommand(socketPath, command, args, { kind: 'embedded', dataDir: target.dataDir })
  if (reply) {
    if (reply.ok) return { result: reply.result, actedOn: describeStudio(reply.studio, socketPath) }
    if (reply.kind === 'failed') throw new Error(reply.error)
    const refusal = new OperatorError(reply.error, reply.kind)
    if (reply.studio) refusal.lookedIn = describeStudio(reply.studio, socketPath)
    throw refusal
  }
  // A caller handing in its database has one; otherwise the folder must hold a studio's database.
  if (!db && !existsSync(path.join(target.dataDir, 'db'))) {
    throw new OperatorError(
      `No studio answers on ${socketPath}, and ${describeEmbedded(target.dataDir)} does not exist (DATABASE_URL is unset). ` +
        `Nothing was changed. Set DATABASE_URL to act on a PostgreSQL studio, or DATA_DIR to the studio's data folder.`,
    )
  }
  const own = db ?? getDb()
  await migrateToLatest(own)
  return runHere(command, args, own, `${describeEmbedded(target.dataDir)}, opened by this command (no studio is running on it)`)
}

/** Runs the command on this process's handle; a refusal says where it looked, as a success says where it acted. */
async function runHere(command: string, args: unknown, db: DB, actedOn: string): Promise<OperatorOutcome> {
  try {
    return { result: await runOperatorCommand(command, args, db), actedOn }
  } catch (error) {
    if (error instanceof OperatorError && error.kind === 'refused') error.lookedIn = actedOn
    throw error
  }
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

/**
 * Listens for operator commands; null (with a warning) when the channel cannot be opened. `studio`
 * and `run` default to this process and the command table (tests stand in another studio).
 */
export async function startOperatorChannel(
  dataDir: string,
  options: { studio?: StudioIdentity; run?: CommandRunner } = {},
): Promise<OperatorChannel | null> {
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
  const studio: Studio = {
    identity: options.studio ?? thisStudio(),
    socketPath,
    run: options.run ?? ((command, args) => runOperatorCommand(command, args)),
  }
  const server = net.createServer({ allowHalfOpen: true }, (socket) => serve(socket, studio))
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
