// Time before a run (issue 21 item 1): an image that cannot finish within the time limit at this
// server's measured speed is refused after its header is read and before anything is charged, on the
// API (with the largest size that fits, machine-readable) and on a page posted without JavaScript
// (with the same size in words); the measured speed moves with every delivered run and persists.
import sharp from 'sharp'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { getDb } from '~/db/db.server'
import { stopBoss } from '~/features/queue/boss.server'
import { action as scaleAction } from '~/routes/api.image-scaler.scale'
import { action as postJob } from '~/routes/api.jobs._index'
import { action as removeBg } from '~/routes/api.remove-bg'
import { action as enhancerPage } from '~/routes/tools.image-enhancer'
import { balanceOf, fileOf, fixture, fromEmptyQueueAndFreeSlot, newUser, newVisitor, toolRequest, type TestCaller } from '../../../tests/support/tools'
import { readResult, routeArgs } from '../../../tests/support/requests'
import { readFactors, readTiming, recordRunTime, RATE_WEIGHT } from './run-rates.server'
import { createVerifiedUser } from '~/features/auth/testing.server'
import { readOutbox } from '~/features/mail/outbox.server'
import { waitForPendingMail } from '~/features/mail/mailer.server'
import { findJob } from './jobs.server'
import { mailIfLongRun } from './ready-mail.server'
import { seedMs } from './run-time'

// Files before this one in the worker's schema may have left runs queued (a batch's items, say), and this
// process's worker would run them during these tests and measure their speed: start from an empty queue
// and a free slot (the signal, not a wait).
beforeAll(async () => {
  await fromEmptyQueueAndFreeSlot()
}, 180_000)

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

// PostgreSQL runs a worker's files against one schema: each test starts without the speeds that real runs
// of earlier files measured, and a speed set here must not slow the next file down.
const forgetSpeeds = async () => {
  await getDb().deleteFrom('tool_rates').execute()
}
beforeEach(forgetSpeeds)
afterEach(forgetSpeeds)

/** Makes this server measure `factor` × the seed for a tool (as if its runs had been that slow). */
async function measuredSpeed(tool: string, factor: number, variant = '') {
  // An upsert: real runs of earlier files in this worker may have measured the tool already.
  await getDb()
    .insertInto('tool_rates')
    .values({ tool, variant, factor, samples: 5 })
    .onConflict((oc) => oc.columns(['tool', 'variant']).doUpdateSet({ factor, samples: 5 }))
    .execute()
}

const rocket = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg') // 640 × 427

async function sideEffects(caller: TestCaller) {
  const db = getDb()
  const ledger = await db.selectFrom('credit_transactions').select('kind').where('account_id', '=', caller.accountId).where('kind', '=', 'consume').execute()
  const jobs = await db.selectFrom('tool_jobs').select('id').where('account_id', '=', caller.accountId).execute()
  return { ledger: ledger.length, jobs: jobs.length }
}

describe('an image too slow for the time limit', () => {
  it('is refused by the API before the charge, with the largest size that fits', async () => {
    // 20 × the seed: a 640 × 427 enhancement would take about 2.5 minutes here.
    await measuredSpeed('image-enhancer', 20)
    const caller = await newUser()
    const before = await balanceOf(caller)
    const answer = await readResult(await scaleAction(routeArgs(toolRequest('/api/image-scaler/scale/', { image: rocket() }, caller.headers))))
    expect(answer.status).toBe(422)
    expect(answer.headers.get('X-Credits-Charged')).toBe('0')
    expect(answer.body.code).toBe('image_too_slow')
    expect(answer.body.time_limit_seconds).toBe(120)
    expect(answer.body.estimated_seconds).toBeGreaterThan(96)
    const largest = answer.body.largest_size as { width: number; height: number }
    expect(largest.width).toBeLessThan(640)
    expect(largest.width).toBeGreaterThanOrEqual(64)
    // The same shape, within a pixel.
    expect(Math.abs(largest.width / largest.height - 640 / 427)).toBeLessThan(0.02)
    expect(answer.body.error).toContain(`Downscale it to ${largest.width} × ${largest.height} or smaller`)
    expect(answer.body.error).toContain('This image (640 × 427) would take about')
    expect(answer.body.remaining).toBe(before)
    expect(await balanceOf(caller)).toBe(before)
    expect(await sideEffects(caller)).toEqual({ ledger: 0, jobs: 0 })
    // The refusal is a run refused, as bad input is.
    const runs = await getDb().selectFrom('tool_runs').select(['outcome', 'error']).where('account_id', '=', caller.accountId).execute()
    expect(runs).toEqual([{ outcome: 'rejected', error: answer.body.error }])
  })

  it('is refused the same way by POST /api/jobs/', async () => {
    await measuredSpeed('image-enhancer', 20)
    const caller = await newUser()
    const before = await balanceOf(caller)
    const answer = await readResult(await postJob(routeArgs(toolRequest('/api/jobs/', { tool: 'image-enhancer', image: rocket() }, caller.headers))))
    expect(answer.status).toBe(422)
    expect(answer.body).toMatchObject({ code: 'image_too_slow', remaining: before })
    expect(answer.body.largest_size.width).toBeLessThan(640)
    expect(await sideEffects(caller)).toEqual({ ledger: 0, jobs: 0 })
  })

  it('is refused on the page without JavaScript, naming the size to downscale to, and no visitor is charged', async () => {
    await measuredSpeed('image-enhancer', 20)
    const visitor = await newVisitor()
    const before = await balanceOf(visitor)
    const posted = await readResult(await enhancerPage(routeArgs(toolRequest('/tools/image-enhancer', { image: rocket() }, visitor.headers))))
    expect(posted.status).toBe(422)
    expect(posted.body).toMatchObject({ ok: false, status: 422, remaining: before })
    expect(posted.body.error).toMatch(/Downscale it to \d+ × \d+ or smaller and try again\. Nothing was charged\./)
    expect(await balanceOf(visitor)).toBe(before)
    expect(await sideEffects(visitor)).toEqual({ ledger: 0, jobs: 0 })
  })

  it('answers 503 with Retry-After when no size would finish in time (the server is too slow now)', async () => {
    await measuredSpeed('image-enhancer', 100)
    const caller = await newUser()
    const before = await balanceOf(caller)
    const answer = await readResult(await scaleAction(routeArgs(toolRequest('/api/image-scaler/scale/', { image: rocket() }, caller.headers))))
    expect(answer.status).toBe(503)
    expect(answer.headers.get('Retry-After')).toBe('60')
    expect(answer.body).toMatchObject({ code: 'image_too_slow', largest_size: null })
    expect(answer.body.error).toContain('try again in a few minutes')
    expect(await balanceOf(caller)).toBe(before)
    expect(await sideEffects(caller)).toEqual({ ledger: 0, jobs: 0 })
  })

  it('uses the speed of the model choice asked for (the remover)', async () => {
    await measuredSpeed('background-remover', 100, 'quality')
    const caller = await newUser()
    const refused = await readResult(await removeBg(routeArgs(toolRequest('/api/remove-bg/', { image: rocket(), model: 'quality' }, caller.headers))))
    expect(refused.status).toBe(422)
    expect(refused.body.code).toBe('image_too_slow')
    // The fast model was never measured slow: the same photo runs.
    const ran = await readResult(await removeBg(routeArgs(toolRequest('/api/remove-bg/', { image: rocket(), model: 'fast' }, caller.headers))))
    expect(ran.status).toBe(200)
  })
})

describe('the measured speed', () => {
  it('starts at the seed, is replaced by the first run, then moves by a share of each run', async () => {
    expect((await readTiming('face-blurrer', '')).factor).toBe(1)
    const ms = (factor: number) => factor * seedMs('face-blurrer', 1000, 1000)
    await recordRunTime({ tool: 'face-blurrer', variant: '', width: 1000, height: 1000, runMs: ms(3) })
    expect((await readTiming('face-blurrer', '')).factor).toBeCloseTo(3, 6)
    await recordRunTime({ tool: 'face-blurrer', variant: '', width: 1000, height: 1000, runMs: ms(1) })
    expect((await readTiming('face-blurrer', '')).factor).toBeCloseTo(3 * (1 - RATE_WEIGHT) + 1 * RATE_WEIGHT, 6)
    // A run stopped at the limit only ever raises it (its time is a lower bound).
    await recordRunTime({ tool: 'face-blurrer', variant: '', width: 1000, height: 1000, runMs: ms(1), stopped: true })
    expect((await readTiming('face-blurrer', '')).factor).toBeCloseTo(2.4, 6)
    await recordRunTime({ tool: 'face-blurrer', variant: '', width: 1000, height: 1000, runMs: ms(9), stopped: true })
    expect((await readTiming('face-blurrer', '')).factor).toBeCloseTo(9, 6)
    const row = await getDb().selectFrom('tool_rates').select('samples').where('tool', '=', 'face-blurrer').executeTakeFirstOrThrow()
    expect(row.samples).toBe(4)
  })

  it('is measured by a delivered run, per model choice', async () => {
    const caller = await newUser()
    const ran = await readResult(await removeBg(routeArgs(toolRequest('/api/remove-bg/', { image: rocket(), model: 'fast' }, caller.headers))))
    expect(ran.status).toBe(200)
    // Written by the worker just after the answer went out.
    await vi.waitFor(async () => expect(Object.keys(await readFactors('background-remover'))).toEqual(['fast']), { timeout: 10_000, interval: 50 })
    const { fast } = await readFactors('background-remover')
    const run = await getDb().selectFrom('tool_runs').select('duration_ms').where('account_id', '=', caller.accountId).executeTakeFirstOrThrow()
    expect(fast).toBeCloseTo(Number(run.duration_ms) / seedMs('background-remover', 640, 427), 1)
  })
})

describe('a run longer than a minute', () => {
  it('mails its signed-in owner that the result is ready; a quicker one does not', async () => {
    const { user } = await createVerifiedUser()
    const caller = await newUser()
    const ran = await readResult(await removeBg(routeArgs(toolRequest('/api/remove-bg/', { image: rocket() }, caller.headers))))
    expect(ran.status).toBe(200)
    const [{ id }] = await getDb().selectFrom('tool_jobs').select('id').where('account_id', '=', caller.accountId).execute()
    const quick = (await findJob(id))!
    // The same delivered job, as a page run of this user's that took 61 s from submission to result.
    const long = { ...quick, user_id: user.id, api_key_id: null, created_at: new Date(new Date(quick.finished_at!).getTime() - 61_000) }
    expect(await mailIfLongRun({ ...quick, user_id: user.id, api_key_id: null })).toBe(false)
    expect(await mailIfLongRun(long)).toBe(true)
    await waitForPendingMail()
    const mails = await readOutbox(user.email)
    expect(mails.map((m) => m.subject)).toEqual(['Your background remover result is ready'])
    expect(mails[0]!.link).toContain(`/tools/background-remover?job=${id}`)
  })
})

// sharp keeps the fixture honest: the sizes above are the photo's.
it('the fixture is 640 × 427', async () => {
  const meta = await sharp(fixture('photos/noface-rocket.jpg')).metadata()
  expect([meta.width, meta.height]).toEqual([640, 427])
})
