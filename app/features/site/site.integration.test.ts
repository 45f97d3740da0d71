import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { loader as notFoundLoader, action as notFoundAction } from '~/routes/$'
import { loader as pricingLoader } from '~/routes/pricing'
import { BASE, formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { medianRenderTime } from './facts.server'

async function recordRuns(tool: string, runs: { ms: number; outcome?: 'success' | 'failed'; daysAgo?: number }[]) {
  await getDb()
    .insertInto('tool_runs')
    .values(
      runs.map((r) => ({
        tool,
        outcome: r.outcome ?? 'success',
        duration_ms: r.ms,
        created_at: new Date(Date.now() - (r.daysAgo ?? 0) * 86_400_000),
      })),
    )
    .execute()
}

describe('medianRenderTime', () => {
  it('is the median of successful runs in the last 30 days', async () => {
    const tool = `test-tool-${randomUUID()}`
    await recordRuns(tool, [
      { ms: 100 },
      { ms: 300 },
      { ms: 200 },
      { ms: 90_000, outcome: 'failed' },
      { ms: 99_000, daysAgo: 40 },
    ])
    expect(await medianRenderTime({ tools: [tool] })).toEqual({ runs: 3, medianMs: 200 })
  })

  it('is null before there is any run to measure', async () => {
    const tool = `test-tool-${randomUUID()}`
    await recordRuns(tool, [{ ms: 500, outcome: 'failed' }])
    expect(await medianRenderTime({ tools: [tool] })).toBeNull()
  })
})

describe('/pricing loader', () => {
  it('lists the packages from the database and each tool’s cost', async () => {
    const { body } = await readResult(await pricingLoader())
    expect(body.packages.map((p: { credits: number; price: number; label: string | null }) => [p.credits, p.price, p.label])).toEqual([
      [100, 9, null],
      [500, 39, 'Most popular'],
      [2000, 129, 'Best value'],
    ])
    expect(body.facts.costs).toEqual({
      'background-remover': 1,
      'face-blurrer': 1,
      'svg-converter': 1,
      // Standard detail (no GFPGAN in the test studio) costs less than a real restoration (issue 35).
      'face-restorer': 1,
      'image-enhancer': 2,
    })
    expect(body.facts).toMatchObject({ guestDaily: 5, signupBonus: 50, userFloor: 10, purchasingPaused: true })
  })
})

describe('unknown paths', () => {
  it('answer 404 for reads and for posted forms', async () => {
    const get = await readResult(notFoundLoader(routeArgs(new Request(`${BASE}/no/such/page`))))
    expect(get.status).toBe(404)
    const post = await readResult(notFoundAction(routeArgs(formRequest('/no/such/form', { a: '1' }))))
    expect(post.status).toBe(404)
  })
})
