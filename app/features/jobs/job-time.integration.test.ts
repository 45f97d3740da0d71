// GET /api/jobs/<id>/ tells the time (issue 34 item 9, decision 167): while a job waits or runs it
// carries elapsed_seconds and estimated_seconds_left, the figures the workspace's progress panel draws
// for a page opened on the same job; null where there is no honest estimate and once the job ended.
// Jobs are written as they stand mid-run, and the clock is fixed (Date only), so nothing waits on time.
import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { getDb } from '~/db/db.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { loader as getJob } from '~/routes/api.jobs.$id'
import { loadToolPage } from '~/features/tools/page-loader.server'
import { watchRun } from './run-time-left'
import { newUser, type TestCaller } from '../../../tests/support/tools'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { insertJob } from './jobs.server'

afterEach(() => {
  vi.useRealTimers()
})

interface Standing {
  tool: ToolSlug
  status: 'queued' | 'running' | 'failed'
  progress: number
  stage: string | null
  /** How long ago the job was created. */
  agoMs: number
  size?: { width: number; height: number }
}

/** A job as it stands at `now`, written straight to the table (no worker takes it: no queue entry). */
async function jobStanding(caller: TestCaller, standing: Standing, now: number): Promise<string> {
  const id = randomUUID()
  const bytes = Buffer.from('not read: the job is never run')
  await insertJob(
    {
      id,
      accountId: caller.accountId,
      tool: standing.tool,
      options: {},
      originalName: 'photo.png',
      bytes,
      width: standing.size?.width ?? null,
      height: standing.size?.height ?? null,
      notes: [],
      idempotencyKey: null,
      fingerprint: randomUUID(),
      chargeTransactionId: null,
    },
    getDb(),
  )
  await getDb()
    .updateTable('tool_jobs')
    // created_at is the database's to set (ColumnType Generated): written here as a test's past.
    .set({ status: standing.status, outcome: standing.status === 'failed' ? 'failed' : null, progress: standing.progress, stage: standing.stage, created_at: new Date(now - standing.agoMs) } as never)
    .where('id', '=', id)
    .execute()
  return id
}

async function statusOf(caller: TestCaller, id: string) {
  const answer = await readResult(await getJob(routeArgs(new Request(`${BASE}/api/jobs/${id}/`, { headers: caller.headers }), { id })))
  expect(answer.status).toBe(200)
  return answer.body as { status: string; elapsed_seconds: number | null; estimated_seconds_left: number | null }
}

/** Fixes Date (only: timers and the database's own clock run on) at `now`. */
function clockAt(now: number) {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(now)
}

describe('GET /api/jobs/<id>/ while a job runs', () => {
  it('gives the elapsed time and the time left from the run’s own rate when the tool has no expectation', async () => {
    const caller = await newUser()
    const now = Date.now()
    // The SVG converter (not estimated): half its work done ((40 − 18) / (62 − 18)) in 20 s → 20 s left.
    const id = await jobStanding(caller, { tool: 'svg-converter', status: 'running', progress: 40, stage: 'Rendering raster output', agoMs: 20_000 }, now)
    clockAt(now)
    expect(await statusOf(caller, id)).toMatchObject({ status: 'running', elapsed_seconds: 20, estimated_seconds_left: 20 })
  })

  it('gives no estimate before the work begins, for a short run, or once the job has ended', async () => {
    const caller = await newUser()
    const now = Date.now()
    const queued = await jobStanding(caller, { tool: 'svg-converter', status: 'queued', progress: 0, stage: null, agoMs: 7_000 }, now)
    const uploading = await jobStanding(caller, { tool: 'svg-converter', status: 'running', progress: 18, stage: 'Uploading vector data', agoMs: 9_500 }, now)
    // Half done in 2 s: 4 s in all, under SHORT_RUN_MS, too short for a countdown.
    const short = await jobStanding(caller, { tool: 'svg-converter', status: 'running', progress: 40, stage: 'Rendering raster output', agoMs: 2_000 }, now)
    const ended = await jobStanding(caller, { tool: 'svg-converter', status: 'failed', progress: 40, stage: 'Rendering raster output', agoMs: 30_000 }, now)
    clockAt(now)
    expect(await statusOf(caller, queued)).toMatchObject({ status: 'queued', elapsed_seconds: 7, estimated_seconds_left: null })
    expect(await statusOf(caller, uploading)).toMatchObject({ status: 'running', elapsed_seconds: 9, estimated_seconds_left: null })
    expect(await statusOf(caller, short)).toMatchObject({ status: 'running', elapsed_seconds: 2, estimated_seconds_left: null })
    expect(await statusOf(caller, ended)).toMatchObject({ status: 'failed', elapsed_seconds: null, estimated_seconds_left: null })
  })

  it('tells the time left the workspace shows for the same job, its expectation included', async () => {
    const caller = await newUser()
    const now = Date.now()
    const steps = TOOLS['background-remover'].steps
    const working = steps[1]!
    const id = await jobStanding(caller, { tool: 'background-remover', status: 'running', progress: 41, stage: working.message, agoMs: 30_000, size: { width: 6_000, height: 4_000 } }, now)
    clockAt(now)
    const body = await statusOf(caller, id)
    // The page opened on the job (?job=<id>), as its loader hands it to the progress panel, drawn once now.
    const page = await loadToolPage('background-remover', new Request(`${BASE}/background-remover?job=${id}`, { headers: caller.headers }))
    expect(page.jobClock).not.toBeNull()
    expect(page.jobClock!.estimateMs).toBeGreaterThan(0)
    const drawn = watchRun(null, { steps, progress: { percent: 41, message: working.message }, now, startedAt: page.jobClock!.startedAt, expectedMs: page.jobClock!.estimateMs })
    expect(drawn.watch.countdown).not.toBeNull()
    expect(body).toMatchObject({ elapsed_seconds: 30, estimated_seconds_left: Math.ceil(drawn.watch.countdown!.leftMs / 1000) })
    expect(body.estimated_seconds_left).toBeGreaterThan(0)
  })
})
