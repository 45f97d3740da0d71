// The SVG renderer pool through /api/svg2image/convert/: a render over its time limit fails only
// that run, with 422, refunded and recorded as failed, and the next conversion renders.
import { afterEach, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { resetSvgRenderersForTests, svgRenderers } from '~/features/tools/svg-converter.server'
import { RENDER_TIMEOUT_MESSAGE } from '~/features/tools/svg-renderer-pool.server'
import { action } from '~/routes/api.svg2image.convert'
import { readResult, routeArgs } from '../../../tests/support/requests'
import { balanceOf, fileOf, newUser, randomIp, toolRequest, type TestCaller } from '../../../tests/support/tools'

/** Seconds of blurring for resvg: far over a 50 ms limit. */
const slow = `<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="3000"><filter id="f"><feGaussianBlur stdDeviation="40"/><feGaussianBlur stdDeviation="40"/><feGaussianBlur stdDeviation="40"/></filter><rect width="3000" height="3000" fill="#0a0" filter="url(#f)"/></svg>`
const square = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="#0a0"/></svg>'

async function convert(user: TestCaller, svg: string) {
  const request = toolRequest('/api/svg2image/convert/', { svg: fileOf(Buffer.from(svg), 'x.svg', 'image/svg+xml'), format: 'png', scale: '1' }, {
    'x-facet-client-ip': randomIp(),
    ...user.headers,
  })
  return readResult(await action(routeArgs(request)))
}

afterEach(() => {
  delete process.env.SVG_RENDER_TIMEOUT_MS
  resetConfigForTests()
  resetSvgRenderersForTests()
})

describe('SVG renders over their time limit', () => {
  it('answer 422, are refunded and recorded as failed; the next conversion works', async () => {
    process.env.SVG_RENDER_TIMEOUT_MS = '50'
    resetConfigForTests()
    resetSvgRenderersForTests()
    const user = await newUser()
    const balance = await balanceOf(user)

    const answer = await convert(user, slow)
    expect(answer.status).toBe(422)
    expect(answer.body).toEqual({ error: RENDER_TIMEOUT_MESSAGE, detail: RENDER_TIMEOUT_MESSAGE, remaining: balance })
    expect(await balanceOf(user)).toBe(balance)
    const run = await getDb().selectFrom('tool_runs').select(['outcome']).where('account_id', '=', user.accountId).executeTakeFirstOrThrow()
    expect(run.outcome).toBe('failed')

    // The next conversion must render, not beat 50 ms on a busy machine: the limit goes back up
    // on the same pool, whose killed renderer has been replaced.
    svgRenderers().options.timeoutMs = 60_000
    const next = await convert(user, square)
    expect(next.status).toBe(200)
    expect(await balanceOf(user)).toBe(balance - 1)
  })
})
