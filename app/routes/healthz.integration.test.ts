import { describe, expect, it, vi } from 'vitest'
import { stopBoss } from '~/features/queue/boss.server'
import { startJobWorker } from '~/features/tools/jobs/worker.server'
import { loader } from '~/routes/healthz'
import { readResult } from '../../tests/support/requests'

describe('GET /healthz', () => {
  it('reports the database as reachable, naming its kind', async () => {
    const { status, body } = await readResult(await loader())
    expect(status).toBe(200)
    expect(body.database).toEqual({ ok: true, kind: process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite' })
  })

  it('reports the process role, the queue depth and the workers seen recently', { timeout: 60_000 }, async () => {
    await startJobWorker()
    await vi.waitFor(
      async () => {
        const { body } = await readResult(await loader())
        expect(body.queue).toMatchObject({ role: 'web+worker', waiting: expect.any(Number), running: expect.any(Number) })
        // This process's worker, heard from through pg-boss's instance registry.
        expect(body.queue.workers).toEqual(expect.arrayContaining([expect.objectContaining({ pid: process.pid, slots: 1 })]))
      },
      { timeout: 45_000, interval: 500 },
    )
    await stopBoss({ timeoutMs: 2_000 })
  })

  it('says which PUBLIC_URL mail links use, and whether it looks wrong', async () => {
    const { body } = await readResult(await loader())
    expect(body.publicUrl).toEqual({ value: expect.stringMatching(/^https?:\/\//), warning: null })
  })
})
