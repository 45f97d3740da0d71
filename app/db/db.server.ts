// The one database handle of the process: PGlite in the data folder when DATABASE_URL is unset,
// PostgreSQL through pg when it is. Same migrations and queries either way.
import path from 'node:path'
import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PostgresDialect, type Dialect, type Transaction } from 'kysely'
import pg from 'pg'
import { config } from '~/config.server'
import { logger } from '~/utils/logger.server'
import { forgetDatabaseSingletons, replaceSingleton, singleton } from '~/utils/singleton.server'
import { lockDataFolder } from './data-folder-lock.server'
import { PGliteDialect } from './pglite-dialect.server'
import type { Database } from './schema'

// Counts and identity columns are int8; both drivers hand them back as plain numbers.
const INT8 = 20
pg.types.setTypeParser(INT8, (v: string) => Number(v))
const BYTEA = 17

export type DB = Kysely<Database>

export interface DatabaseHandle {
  db: DB
  kind: 'pglite' | 'postgres'
  /** The pg pool, for libraries that need one (rate-limiter-flexible's PostgreSQL store). */
  pool?: pg.Pool
  /** PostgreSQL: how to reach it (pg-boss opens its own small pool). */
  connectionString?: string
  /** PGlite: the instance (pg-boss runs on it through its PGlite adapter). */
  pglite?: PGlite
  /** The schema of pg-boss's own tables, beside the app's. */
  bossSchema: string
}

const BOSS_SCHEMA = 'pgboss'

export function createPostgresHandle(connectionString: string, max = 10, searchPath?: string): DatabaseHandle {
  const pool = new pg.Pool({ connectionString, max, options: searchPath ? `-c search_path=${searchPath}` : undefined })
  // A connection the database drops (a restart, a network cut) must not end the process. pg emits
  // 'error' on the connection itself, in use or idle, and nobody listens there (Kysely does not): an
  // unhandled 'error' event was an uncaught exception. Logged here; the pool drops the broken
  // connection when it is released, and the pool's own event for an idle one is that same error.
  pool.on('connect', (client) => client.on('error', (error) => logger.warn({ err: error.message }, 'database connection lost; it will be replaced')))
  pool.on('error', () => {})
  return {
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    kind: 'postgres',
    pool,
    connectionString,
    // A test run's schema gets a queue schema of its own too, so concurrent runs never share jobs.
    bossSchema: searchPath ? `${searchPath}_boss` : BOSS_SCHEMA,
  }
}

export function createPGliteHandle(pglite: PGlite): DatabaseHandle {
  return { db: new Kysely<Database>({ dialect: pgliteDialect(pglite) }), kind: 'pglite', pglite, bossSchema: BOSS_SCHEMA }
}

export function pgliteOptions() {
  return {
    parsers: { [INT8]: (v: string) => Number(v), [BYTEA]: parseBytea },
    serializers: { [BYTEA]: serializeBytea },
  }
}

// bytea comes back from PGlite as hex text ('\\x…'). PGlite's own converters go byte by byte in
// JavaScript (about 200 ms per MB in, 90 ms per MB out); Buffer's hex codec does the same work
// natively, and hands back a Buffer as pg does.
function parseBytea(text: string): Buffer {
  return Buffer.from(text.slice(2), 'hex')
}

// Going in, the bytes are the parameter itself: PGlite's Bind sends a byte array in the binary
// format, as pg sends a Buffer, so nothing is encoded and the server decodes no hex (a 1 MP result,
// 1.5 MB, took 20-45 ms to store as hex text).
function serializeBytea(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) throw new Error('Invalid input for bytea type')
  // PGlite's serializer type says string; its Bind takes any ArrayBuffer view (binary format).
  return bytes as unknown as string
}

function pgliteDialect(pglite: PGlite): Dialect {
  return new PGliteDialect(pglite)
}

function createDefaultHandle(): DatabaseHandle {
  const c = config()
  if (c.DATABASE_URL) return createPostgresHandle(c.DATABASE_URL)
  const dir = path.join(c.dataDir, 'db')
  mkdirSync(dir, { recursive: true })
  // One process per PGlite folder: refuse (naming the holder) rather than open it beside a running studio.
  lockDataFolder(dir)
  return createPGliteHandle(new PGlite(dir, pgliteOptions()))
}

export function databaseHandle(): DatabaseHandle {
  return singleton('database', createDefaultHandle)
}

export function getDb(): DB {
  return databaseHandle().db
}

/**
 * Tests and benches install their own database. Installing another one than the current forgets what
 * was bound to the previous (pg-boss and its queues: stop them first with stopBoss), so they start
 * again on this one: a bench that ran on one scratch database and then another sent its jobs into a
 * database where pg-boss had never created its tables.
 */
export function useDatabaseHandle(handle: DatabaseHandle): void {
  const store = globalThis as unknown as { __facetSingletons?: Map<string, unknown> }
  if (store.__facetSingletons?.has('database') && store.__facetSingletons.get('database') !== handle) forgetDatabaseSingletons()
  replaceSingleton('database', handle)
}

/** A database handle or an open transaction: repository functions take either (the dbOrTx pattern). */
export type DbOrTx = DB | Transaction<Database>

/**
 * Runs `fn` in a transaction: the caller's when `dbOrTx` already is one (so several writes of a
 * service commit or fail together), else a new one.
 */
export async function executeTx<T>(dbOrTx: DbOrTx, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (dbOrTx.isTransaction) return fn(dbOrTx as Transaction<Database>)
  return dbOrTx.transaction().execute(fn)
}
