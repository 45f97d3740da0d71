// POST /api/jobs/ with `Prefer: wait=N` (RFC 7240, decision 184), on PGlite and PostgreSQL: a run expected to
// end within the wait is answered once it has ended, with the job's status (no first poll needed); a run
// expected to take longer is answered at once, as without the preference, so its progress can be followed.
import { afterAll, describe, expect, it, vi } from 'vitest'
import { stopBoss } from '~/features/queue/boss.server'
import { expectedRunMs } from '~/features/jobs/job-time.server'
import { findJob } from '~/features/jobs/jobs.server'
import { MAX_PREFER_WAIT_SECONDS } from '~/features/jobs/view'
import { action as postJob } from '~/routes/api.jobs._index'
import { loader as getJob } from '~/routes/api.jobs.$id'
import { balanceOf, fileOf, fixture, newUser, newVisitor, type TestCaller } from '../../../tests/support/tools'
import { BASE, formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { preferredWaitSeconds } from './jobs-api.server'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

async function post(caller: TestCaller, fields: Record<string, string | Blob>, prefer?: string) {
  const headers = { ...caller.headers, ...(prefer ? { Prefer: prefer } : {}) }
  return readResult(await postJob(routeArgs(formRequest('/api/jobs/', fields, { headers }))))
}

const jobOf = async (caller: TestCaller, id: string) => readResult(await getJob(routeArgs(new Request(`${BASE}/api/jobs/${id}/`, { headers: caller.headers }), { id })))

describe('Prefer: wait on POST /api/jobs/', () => {
  it('reads N from the header, at most the ceiling, and nothing from anything else', () => {
    const prefer = (value?: string) => preferredWaitSeconds(new Request(BASE, { headers: value === undefined ? {} : { Prefer: value } }))
    expect(prefer('wait=2')).toBe(2)
    expect(prefer('respond-async, wait=5')).toBe(5)
    expect(prefer('wait="3"')).toBe(3)
    expect(prefer(`wait=${MAX_PREFER_WAIT_SECONDS * 100}`)).toBe(MAX_PREFER_WAIT_SECONDS)
    expect(prefer(undefined)).toBe(0)
    expect(prefer('respond-async')).toBe(0)
    expect(prefer('wait=soon')).toBe(0)
    expect(prefer('wait=-1')).toBe(0)
    expect(prefer('nowait=4')).toBe(0)
  })

  it('a short run (an SVG icon) is answered once it has ended: its status, result and balance, charged once', async () => {
    const user = await newUser()
    const before = await balanceOf(user)
    const svg = fileOf(fixture('svg/tango-internet-web-browser.svg'), 'browser.svg', 'image/svg+xml')
    const answered = await post(user, { tool: 'svg-converter', svg, format: 'png', scale: '1' }, `wait=${MAX_PREFER_WAIT_SECONDS}`)
    expect(answered.status).toBe(202)
    expect(answered.headers.get('Preference-Applied')).toBe(`wait=${MAX_PREFER_WAIT_SECONDS}`)
    const { id } = answered.body
    expect(answered.headers.get('Location')).toBe(`/api/jobs/${id}/`)
    // What GET /api/jobs/<id>/ says of it now, and where to follow it (the signed link is made per read: its
    // expiry is counted from the second it was made).
    const read = (await jobOf(user, id)).body
    expect(answered.body).toEqual({ ...read, url: `/api/jobs/${id}/`, signed_result_url: expect.stringMatching(/^\/api\/results\/.+\?expires=\d+&signature=/) })
    expect(answered.body).toMatchObject({ status: 'succeeded', progress: 100, result_url: expect.stringMatching(/^\/api\/results\//), error: null })
    const after = await balanceOf(user)
    expect(after).toBeLessThan(before)
    expect(answered.body.remaining).toBe(after)
    expect(answered.headers.get('X-Credits-Remaining')).toBe(String(after))
  })

  it('a run expected to take longer than the wait is answered at once, as without the preference', async () => {
    const visitor = await newVisitor()
    const image = fileOf(fixture('photos/group-nasa-astronaut-class.jpg'), 'group.jpg', 'image/jpeg')
    const answered = await post(visitor, { tool: 'image-enhancer', image }, 'wait=1')
    expect(answered.status).toBe(202)
    const { id } = answered.body
    // The estimate the server went by: longer than the second asked for.
    expect(await expectedRunMs((await findJob(id))!)).toBeGreaterThan(1_000)
    expect(answered.headers.get('Preference-Applied')).toBeNull()
    expect(answered.body).toEqual({ id, status: expect.stringMatching(/^(queued|running)$/), url: `/api/jobs/${id}/` })
    // Let it end here, so that no run outlives the file.
    await vi.waitFor(async () => expect((await findJob(id))?.status).toBe('succeeded'), { timeout: 300_000, interval: 100 })
  }, 320_000)
})
