// /readyz against a PostgreSQL that goes away and comes back: the app reaches its own database through
// a TCP proxy in this test, which is cut (every connection dropped, new ones refused) and restored.
// 503 within 5 s of the cut, 200 again after, the process survives the dropped connections, and
// /metrics keeps answering meanwhile.
// PostgreSQL only: PGlite lives in the process and cannot lose its database.
import { createServer, type Server, type Socket, connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { createPostgresHandle, useDatabaseHandle, type DatabaseHandle } from '~/db/db.server'
import { latestMigrationName, migrateToLatest } from '~/db/migrate.server'
import { loader as readyz } from '~/routes/readyz'
import { readResult } from '../../../tests/support/requests'
import { metricsText } from '~/features/observability/metrics.server'

const onPostgres = process.env.TEST_DB === 'postgres'
const adminUrl = process.env.TEST_DATABASE_URL ?? ''
const database = `readiness_${process.pid}_${Date.now()}`

/** A TCP proxy to PostgreSQL that can be cut and restored on the same port. */
class CuttableProxy {
  private server: Server | null = null
  private readonly sockets = new Set<Socket>()
  port = 0

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host)
      for (const socket of [client, upstream]) {
        this.sockets.add(socket)
        socket.on('close', () => this.sockets.delete(socket))
        socket.on('error', () => {})
      }
      client.pipe(upstream).pipe(client)
      client.on('close', () => upstream.destroy())
      upstream.on('close', () => client.destroy())
    })
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve))
    this.port = (server.address() as AddressInfo).port
    this.server = server
  }

  async cut(): Promise<void> {
    const server = this.server
    this.server = null
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  }
}

const ready = async () => readResult(await readyz())

describe.runIf(onPostgres)('/readyz when the database goes away (PostgreSQL)', () => {
  let proxy: CuttableProxy
  let direct: DatabaseHandle
  let proxied: DatabaseHandle

  beforeAll(async () => {
    // A web-only process: readiness is about the database here, not a worker.
    process.env.WORKER_CONCURRENCY = '0'
    resetConfigForTests()
    const admin = createPostgresHandle(adminUrl, 1)
    await sql`CREATE DATABASE ${sql.id(database)}`.execute(admin.db)
    await admin.db.destroy()
    direct = createPostgresHandle(adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${database}`), 1)
    await migrateToLatest(direct.db)
    const target = new URL(adminUrl)
    proxy = new CuttableProxy({ host: target.hostname, port: Number(target.port || 5432) })
    await proxy.open()
    const viaProxy = new URL(adminUrl)
    viaProxy.host = `127.0.0.1:${proxy.port}`
    viaProxy.pathname = `/${database}`
    proxied = createPostgresHandle(viaProxy.toString(), 3)
    useDatabaseHandle(proxied)
  })

  afterAll(async () => {
    await proxied?.db.destroy().catch(() => {})
    await direct?.db.destroy()
    await proxy?.cut()
    const admin = createPostgresHandle(adminUrl, 1)
    await sql`DROP DATABASE IF EXISTS ${sql.id(database)} WITH (FORCE)`.execute(admin.db)
    await admin.db.destroy()
  })

  it('200 while reachable, 503 within 5 s of the cut, 200 again once the database is back', async () => {
    const before = await ready()
    expect(before.status).toBe(200)
    expect(before.body.checks.worker).toEqual({ ok: true, role: 'web', state: 'none (web only)' })
    // A web-only process runs no model: missing models would be reported, not held against it.
    expect(before.body.checks.models.required).toBe(false)

    await proxy.cut()
    await vi.waitFor(
      async () => {
        const { status, body } = await ready()
        expect(status).toBe(503)
        expect(body.checks.database).toMatchObject({ ok: false, kind: 'postgres', error: expect.any(String) })
        expect(body.checks.migrations).toMatchObject({ ok: false, error: 'database unreachable' })
      },
      { timeout: 5_000, interval: 200 },
    )
    // A scrape still answers: the queue gauges (read from the database) are absent, the rest is there.
    const scrape = (await metricsText()).body
    expect(scrape).toMatch(/^nodejs_eventloop_lag_seconds /m)
    expect(scrape).not.toMatch(/^facet_queue_jobs\{/m)

    await proxy.open()
    await vi.waitFor(async () => expect((await ready()).status).toBe(200), { timeout: 10_000, interval: 200 })
    expect((await metricsText()).body).toMatch(/^facet_queue_jobs\{state="waiting"\} 0$/m)
  })

  it('503 when the latest migration is not applied (a database a newer release has not migrated)', async () => {
    const latest = (await latestMigrationName())!
    await sql`DELETE FROM kysely_migration WHERE name = ${latest}`.execute(direct.db)
    const { status, body } = await ready()
    expect(status).toBe(503)
    expect(body.checks.migrations).toEqual({ ok: false, latest, error: `migration ${latest} is not applied` })
    expect(body.checks.database.ok).toBe(true)
  })
})
