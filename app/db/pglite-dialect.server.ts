// A Kysely dialect for PGlite. PGlite has exactly one connection, so callers queue for it: a
// transaction holds the connection (and PGlite's own transaction lock) until it ends, and every
// other query waits its turn.
// No published dialect fits PGlite 0.5 (see docs/decisions/002-database.md).
import type { PGlite, Transaction } from '@electric-sql/pglite'
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely'

type Queryable = Pick<PGlite, 'query'>

/** A transaction in progress: PGlite's own, held open until Kysely commits or rolls back. */
interface OpenTransaction {
  tx: Transaction
  finish: (rollback: boolean) => Promise<void>
}

class PGliteConnection implements DatabaseConnection {
  #open: OpenTransaction | undefined

  constructor(private readonly pg: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const target: Queryable = this.#open?.tx ?? this.pg
    const result = await target.query<R>(query.sql, query.parameters as unknown[], { rowMode: 'object' })
    const affected = result.affectedRows ?? 0
    return {
      rows: result.rows,
      numAffectedRows: affected > 0 || result.rows.length === 0 ? BigInt(affected) : undefined,
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not stream query results')
  }

  /**
   * Kysely's transactions run inside pglite.transaction(), which holds PGlite's exclusive lock until
   * the callback ends. Whoever else queries the same PGlite instance directly (pg-boss's adapter)
   * then waits for the commit instead of landing inside our transaction.
   */
  async begin(): Promise<void> {
    if (this.#open) throw new Error('PGlite: a transaction is already open on the connection')
    await new Promise<void>((started, failedToStart) => {
      let end!: () => void
      const ended = new Promise<void>((resolve) => (end = resolve))
      const done = this.pg.transaction(async (tx) => {
        let rollback = false
        this.#open = {
          tx,
          finish: async (wantRollback) => {
            rollback = wantRollback
            end()
            await done
          },
        }
        started()
        await ended
        if (rollback && !tx.closed) await tx.rollback()
      })
      done.catch(failedToStart).finally(() => (this.#open = undefined))
    })
  }

  async end(rollback: boolean): Promise<void> {
    const open = this.#open
    if (!open) throw new Error('PGlite: no transaction is open on the connection')
    await open.finish(rollback)
  }
}

class PGliteDriver implements Driver {
  readonly #pg: PGlite
  readonly #connection: PGliteConnection
  #queue: Promise<void> = Promise.resolve()
  #release: (() => void) | undefined

  constructor(pg: PGlite) {
    this.#pg = pg
    this.#connection = new PGliteConnection(pg)
  }

  async init(): Promise<void> {
    await this.#pg.waitReady
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue
    let release!: () => void
    this.#queue = new Promise<void>((resolve) => (release = resolve))
    await previous
    this.#release = release
    return this.#connection
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).begin()
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).end(false)
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).end(true)
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release
    this.#release = undefined
    release?.()
  }

  async destroy(): Promise<void> {
    await this.#pg.close()
  }
}

export class PGliteDialect implements Dialect {
  constructor(private readonly pg: PGlite) {}
  createAdapter() {
    return new PostgresAdapter()
  }
  createDriver() {
    return new PGliteDriver(this.pg)
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler()
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db)
  }
}
