import { describe, expect, it, vi } from 'vitest'
import { stopBoss } from '~/features/queue/boss.server'
import { startJobWorker } from '~/features/jobs/worker.server'
import { loader } from '~/routes/healthz'
import { BASE, readResult, routeArgs } from '../../tests/support/requests'
import { createVerifiedUser } from '~/features/auth/testing.server'
import { resetConfigForTests } from '~/config.server'

/** A request from `address` (the client address the server hands routes), with more headers. */
const from = (address: string, headers: Record<string, string> = {}) =>
  routeArgs(new Request(`${BASE}/healthz`, { headers: { 'x-facet-client-ip': address, ...headers } }))
const machine = () => from('127.0.0.1')

describe('GET /healthz', () => {
  it('reports the database as reachable, naming its kind', async () => {
    const { status, body } = await readResult(await loader(machine()))
    expect(status).toBe(200)
    expect(body.database).toEqual({ ok: true, kind: process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite' })
  })

  it('reports the process role, the queue depth and the workers seen recently', { timeout: 60_000 }, async () => {
    await startJobWorker()
    await vi.waitFor(
      async () => {
        const { body } = await readResult(await loader(machine()))
        expect(body.queue).toMatchObject({ role: 'web+worker', waiting: expect.any(Number), running: expect.any(Number) })
        // This process's worker, heard from through pg-boss's instance registry.
        expect(body.queue.workers).toEqual(expect.arrayContaining([expect.objectContaining({ pid: process.pid, slots: 1 })]))
      },
      { timeout: 45_000, interval: 500 },
    )
    await stopBoss({ timeoutMs: 2_000 })
  })

  it('says which PUBLIC_URL mail links use, and whether it looks wrong', async () => {
    const { body } = await readResult(await loader(machine()))
    expect(body.publicUrl).toEqual({ value: expect.stringMatching(/^https?:\/\//), warning: null })
  })

  it('tells an anonymous caller only the status, the database reachability and the models: no hosts, processes or settings', async () => {
    for (const args of [from('203.0.113.9'), from('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })]) {
      const { status, body } = await readResult(await loader(args))
      expect(status).toBe(200)
      expect(Object.keys(body).sort()).toEqual(['database', 'models', 'status'])
      expect(body.database).toEqual({ ok: true })
      expect(JSON.stringify(body)).not.toContain(String(process.pid))
    }
  })

  it('gives the details to a METRICS_TOKEN holder and to an operator, not to another signed-in user', async () => {
    process.env.METRICS_TOKEN = 'health-token-for-tests'
    const operator = await createVerifiedUser()
    process.env.OPERATOR_EMAILS = operator.user.email
    resetConfigForTests()
    try {
      const detailed = async (headers: Record<string, string>) => Object.keys((await readResult(await loader(from('203.0.113.9', headers)))).body).includes('queue')
      expect(await detailed({ authorization: 'Bearer health-token-for-tests' })).toBe(true)
      expect(await detailed({ authorization: 'Bearer wrong' })).toBe(false)
      expect(await detailed({ authorization: `Token ${operator.token}` })).toBe(true)
      expect(await detailed({ authorization: `Token ${(await createVerifiedUser()).token}` })).toBe(false)
    } finally {
      delete process.env.METRICS_TOKEN
      delete process.env.OPERATOR_EMAILS
      resetConfigForTests()
    }
  })
})
