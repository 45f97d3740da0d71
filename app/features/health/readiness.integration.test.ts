// /livez and /readyz through their loaders: readiness names each check, waits for this process's
// worker (a web+worker process is not ready before its job slots run) and turns 503 when the
// process starts draining.
import { afterAll, describe, expect, it } from 'vitest'
import { latestMigrationName } from '~/db/migrate.server'
import { stopBoss } from '~/features/queue/boss.server'
import { startJobWorker } from '~/features/jobs/worker.server'
import { loader as livez } from '~/routes/livez'
import { loader as readyz } from '~/routes/readyz'
import { readResult } from '../../../tests/support/requests'
import { markDraining } from '~/features/health/readiness.server'

afterAll(async () => {
  await stopBoss({ timeoutMs: 2_000 })
})

describe('GET /livez', () => {
  it('answers ok while the process runs, uncached', async () => {
    const { status, headers, body } = await readResult(livez())
    expect(status).toBe(200)
    expect(body).toEqual({ status: 'ok' })
    expect(headers.get('cache-control')).toBe('no-store')
  })
})

// One sequence: the process's worker state changes from test to test.
describe('GET /readyz', () => {
  it('503 while the worker of a web+worker process has not started, naming that check', async () => {
    const { status, body } = await readResult(await readyz())
    expect(status).toBe(503)
    expect(body.status).toBe('unavailable')
    expect(body.checks.worker).toEqual({ ok: false, role: 'web+worker', state: 'not started' })
    expect(body.checks.database).toEqual({ ok: true, kind: process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite' })
  })

  it('200 with every check once the worker runs: database, latest migration applied, models, worker, storage', async () => {
    await startJobWorker()
    const { status, headers, body } = await readResult(await readyz())
    expect(status).toBe(200)
    expect(headers.get('cache-control')).toBe('no-store')
    expect(body).toEqual({
      status: 'ok',
      checks: {
        database: { ok: true, kind: expect.any(String) },
        migrations: { ok: true, latest: await latestMigrationName() },
        models: { ok: true, missing: [], required: true },
        worker: { ok: true, role: 'web+worker', state: 'running' },
        storage: { ok: true, freeMb: expect.any(Number) },
      },
    })
    expect(body.checks.migrations.latest).toMatch(/^\d{4}-/)
  })

  it('503 from the moment the process starts draining (SIGTERM), so traffic moves elsewhere', async () => {
    markDraining()
    const { status, body } = await readResult(await readyz())
    expect(status).toBe(503)
    expect(body.checks.worker).toMatchObject({ ok: false, state: 'draining', error: 'shutting down' })
    // Liveness is not readiness: the process still runs.
    expect((await readResult(livez())).status).toBe(200)
  })
})
