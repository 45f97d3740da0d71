// "This result is wrong" through the real routes (decision 175): a report through the API, the page's
// form and the MCP tool's call; one report a job (a second replaces the note); the owner only; the case
// sealed at rest (the stored bytes are neither the images nor the note); a corrected cutout's matte kept
// as the expected answer; the report swept with its result; the console's list and exports.
import { randomUUID } from 'node:crypto'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { createVerifiedUser, uniqueEmail } from '~/features/auth/testing.server'
import { grant } from '~/features/credits/ledger.server'
import { reportWrongResult } from '~/features/mcp/studio-calls.server'
import { stopBoss } from '~/features/queue/boss.server'
import { sweepExpiredResults } from '~/features/jobs/results.server'
import { action as removeBg } from '~/routes/api.remove-bg'
import { action as convertSvg } from '~/routes/api.svg2image.convert'
import { action as postCorrections } from '~/routes/api.jobs.$id.corrections'
import { action as postFeedback } from '~/routes/api.jobs.$id.feedback'
import { loader as consoleList } from '~/routes/console.feedback._index'
import { loader as exportAll } from '~/routes/console.feedback.export'
import { loader as exportOne } from '~/routes/console.feedback.$jobId.export'
import { loader as thumbnail } from '~/routes/console.feedback.$jobId.thumbnail.$which'
import { action as pageAction, loader as pageLoader } from '~/routes/feedback.$jobId'
import { fileOf, fixture, newUser, toolRequest, type TestCaller } from '../../../tests/support/tools'
import { BASE, formRequest, jsonRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { readZip } from '../../../tests/support/zip'
import { caseFolder } from './feedback.server'
import { readReport } from './store.server'
import { NOTE_MAX_CHARS, NOTE_TOO_LONG_MESSAGE, REPORT_EXPIRED_MESSAGE, REPORT_NOT_FOUND_MESSAGE, type FeedbackCaseJson } from '~/catalog/feedback'

afterAll(() => stopBoss({ timeoutMs: 5_000 }))

const rocketBytes = fixture('photos/noface-rocket.jpg') // 640 × 427
const rocket = () => fileOf(rocketBytes, 'rocket.jpg', 'image/jpeg')
const operatorEmail = uniqueEmail('feedback-operator')

let owner: TestCaller & { token: string }
let stranger: TestCaller
let operatorCookie: string
beforeAll(async () => {
  process.env.OPERATOR_EMAILS = operatorEmail
  resetConfigForTests()
  owner = await newUser()
  stranger = await newUser()
  await grant({ accountId: owner.accountId, amount: 100, kind: 'adjustment', description: 'Test credits' })
  const operator = await createVerifiedUser({ email: operatorEmail })
  operatorCookie = (await sessionCookieHeader(operator.token)).split(';')[0]!
})

async function cutout(): Promise<{ jobId: string; bytes: Buffer }> {
  const answer = await readResult(await removeBg(routeArgs(toolRequest('/api/remove-bg/', { image: rocket() }, owner.headers))))
  expect(answer.status).toBe(200)
  return { jobId: answer.headers.get('X-Facet-Job-Id')!, bytes: Buffer.from(answer.body as ArrayBuffer) }
}

async function report(jobId: string, body: unknown, caller: TestCaller = owner) {
  return readResult(await postFeedback(routeArgs(jsonRequest(`/api/jobs/${jobId}/feedback/`, body, { headers: caller.headers }), { id: jobId })))
}

async function rawRow(jobId: string) {
  return getDb().selectFrom('result_feedback').selectAll().where('job_id', '=', jobId).executeTakeFirst()
}

function contains(haystack: Buffer, needle: Buffer): boolean {
  return haystack.indexOf(needle.subarray(0, 64)) >= 0
}

const operatorGet = (path: string) => new Request(BASE + path, { headers: { cookie: operatorCookie } })

describe('reporting a result', () => {
  it('keeps one report a job, sealed at rest: a second post replaces the note; the stored bytes are not the images', async () => {
    const { jobId, bytes } = await cutout()
    const first = await report(jobId, { note: 'The left fin is cut off.' })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ job_id: jobId, tool: 'background-remover', note: 'The left fin is cut off.', created: true, input_kept: true, expected_matte: false })
    const second = await report(jobId, { note: 'The fin and the flame.' })
    expect(second.status).toBe(200)
    expect(second.body).toMatchObject({ created: false, note: 'The fin and the flame.' })
    const rows = await getDb().selectFrom('result_feedback').select('job_id').where('job_id', '=', jobId).execute()
    expect(rows).toHaveLength(1)

    // At rest: neither the upload, nor the output, nor the note appear in the stored row.
    const raw = (await rawRow(jobId))!
    expect(contains(raw.ciphertext, rocketBytes)).toBe(false)
    expect(contains(raw.ciphertext, bytes)).toBe(false)
    expect(raw.note_ciphertext!.toString('utf8')).not.toContain('fin')
    expect(JSON.stringify(raw.facts)).not.toContain('fin')
    // Opened with the key: the upload and the output exactly.
    const folder = (await caseFolder(jobId))!
    expect(Buffer.compare(folder.files['input.jpg']!, rocketBytes)).toBe(0)
    expect(Buffer.compare(folder.files['output.png']!, bytes)).toBe(0)
    expect(await sharp(folder.files['studio-matte.png']!).metadata()).toMatchObject({ width: 640, height: 427, channels: 1 })
    expect(folder.files['expected-matte.png']).toBeUndefined()
    expect((await readReport(jobId))!.note).toBe('The fin and the flame.')
  })

  it('keeps a corrected cutout\'s matte as the expected answer', async () => {
    const { jobId } = await cutout()
    // Remove a 100 × 100 block at the top left (all background, alpha 0 anyway) and restore one in the middle.
    const mask = Buffer.alloc(640 * 427, 128)
    for (let y = 150; y < 250; y++) mask.fill(255, y * 640 + 270, y * 640 + 370)
    const png = await sharp(mask, { raw: { width: 640, height: 427, channels: 1 } }).png().toBuffer()
    const corrected = await readResult(
      await postCorrections(routeArgs(formRequest(`/api/jobs/${jobId}/corrections/`, { mask: fileOf(png, 'mask.png', 'image/png') }, { headers: owner.headers }), { id: jobId })),
    )
    expect(corrected.status).toBe(200)
    const answer = await report(jobId, {})
    expect(answer.body).toMatchObject({ created: true, note: null, expected_matte: true })
    const folder = (await caseFolder(jobId))!
    const expected = await sharp(folder.files['expected-matte.png']!).extractChannel(0).raw().toBuffer({ resolveWithObject: true })
    expect(expected.info).toMatchObject({ width: 640, height: 427 })
    // The restored block is opaque in the expected answer.
    for (const [x, y] of [[271, 151], [320, 200], [368, 248]]) expect(expected.data[y! * 640 + x!]).toBe(255)
    const json = JSON.parse(folder.files['case.json']!.toString()) as FeedbackCaseJson
    expect(json).toMatchObject({ tool: 'background-remover', expected_matte: 'expected-matte.png', studio_matte: 'studio-matte.png', input: 'input.jpg', output: 'output.png', output_corrected: true, width: 640, height: 427 })
  })

  it('answers 404 to anyone but the job\'s owner, and stores nothing', async () => {
    const { jobId } = await cutout()
    const answer = await report(jobId, { note: 'not mine' }, stranger)
    expect([answer.status, answer.body.error]).toEqual([404, REPORT_NOT_FOUND_MESSAGE])
    const unknown = await report(randomUUID(), {})
    expect(unknown.status).toBe(404)
    expect(await rawRow(jobId)).toBeUndefined()
    // The page says the same to a stranger (the site's 404, whether the job exists or not).
    const page = await pageLoader(routeArgs(new Request(`${BASE}/feedback/${jobId}`, { headers: stranger.headers }), { jobId })).catch((thrown: unknown) => thrown)
    expect((page as Response).status).toBe(404)
  })

  it('refuses a note too long, and a tool without a kept input reports its output alone', async () => {
    const { jobId } = await cutout()
    const long = await report(jobId, { note: 'x'.repeat(NOTE_MAX_CHARS + 1) })
    expect([long.status, long.body.error]).toEqual([400, NOTE_TOO_LONG_MESSAGE])
    const svg = fileOf(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="teal"/></svg>'), 'box.svg', 'image/svg+xml')
    const scaled = await readResult(await convertSvg(routeArgs(toolRequest('/api/svg2image/convert/', { svg, format: 'png', scale: '1' }, owner.headers))))
    expect([scaled.status, scaled.body.error]).toEqual([200, undefined])
    const scaledJob = scaled.headers.get('X-Facet-Job-Id')!
    const answer = await report(scaledJob, { note: 'blurry' })
    expect(answer.body).toMatchObject({ created: true, tool: 'svg-converter', input_kept: false, expected_matte: false })
    const folder = (await caseFolder(scaledJob))!
    expect(Object.keys(folder.files).sort()).toEqual(['case.json', 'output.png'])
  })

  it('works as a form without JavaScript: the page answers what was done, with the way back', async () => {
    const { jobId } = await cutout()
    const cookie = (await sessionCookieHeader(owner.token)).split(';')[0]!
    const view = await readResult(await pageLoader(routeArgs(new Request(`${BASE}/feedback/${jobId}`, { headers: { cookie } }), { jobId })))
    expect(view.body).toMatchObject({ jobId, toolName: 'Background remover' })
    const posted = await readResult(await pageAction(routeArgs(formRequest(`/feedback/${jobId}`, { note: 'halo on the right', back: '/history' }, { headers: { cookie } }), { jobId })))
    expect(posted.body).toEqual({ ok: true, created: true, back: '/history' })
    // A way back to another site is not offered.
    const again = await readResult(await pageAction(routeArgs(formRequest(`/feedback/${jobId}`, { note: 'again', back: '//evil.example/' }, { headers: { cookie } }), { jobId })))
    expect(again.body).toEqual({ ok: true, created: false, back: null })
    expect((await readReport(jobId))!.note).toBe('again')
  })

  it('the MCP tool reports through the same rules (its answer is the API\'s)', async () => {
    const { jobId } = await cutout()
    const caller = { authorization: owner.headers.authorization, team: null, testMode: false, clientAddress: null }
    const response = await reportWrongResult(caller, jobId, 'from an agent')
    expect(response.status).toBe(201)
    expect(await response.json()).toMatchObject({ job_id: jobId, note: 'from an agent' })
    const strangerCall = await reportWrongResult({ ...caller, authorization: stranger.headers.authorization }, jobId, 'x')
    expect(strangerCall.status).toBe(404)
  })
})

describe('retention', () => {
  it('a report expires with its result and the results sweeper deletes it; an expired result cannot be reported', async () => {
    const { jobId } = await cutout()
    await report(jobId, { note: 'swept' })
    const job = await getDb().selectFrom('tool_jobs').select('result_id').where('id', '=', jobId).executeTakeFirstOrThrow()
    const result = await getDb().selectFrom('results').select('expires_at').where('id', '=', job.result_id!).executeTakeFirstOrThrow()
    const row = (await rawRow(jobId))!
    expect(new Date(row.expires_at).getTime()).toBe(new Date(result.expires_at).getTime())

    await sweepExpiredResults(new Date(new Date(result.expires_at).getTime() - 1000))
    expect(await rawRow(jobId)).toBeDefined()
    await sweepExpiredResults(new Date(new Date(result.expires_at).getTime() + 1000))
    expect(await rawRow(jobId)).toBeUndefined()

    const other = await cutout()
    await getDb().updateTable('results').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', (await getDb().selectFrom('tool_jobs').select('result_id').where('id', '=', other.jobId).executeTakeFirstOrThrow()).result_id!).execute()
    const late = await report(other.jobId, {})
    expect([late.status, late.body.error]).toEqual([410, REPORT_EXPIRED_MESSAGE])
  })
})

describe('the console', () => {
  it('lists the reports with their notes and thumbnails, and exports one or all as bench cases (operators only)', async () => {
    const { jobId } = await cutout()
    await report(jobId, { note: 'console sees this' })
    const list = await readResult(await consoleList(routeArgs(operatorGet('/console/feedback'))))
    const listed = list.body.reports.rows.find((r: { jobId: string }) => r.jobId === jobId)
    expect(listed).toMatchObject({ tool: 'background-remover', note: 'console sees this' })
    expect(listed.thumbnails.map((t: { which: string }) => t.which)).toEqual(['input', 'output'])

    const small = await readResult(await thumbnail(routeArgs(operatorGet(listed.thumbnails[0].url), { jobId, which: 'input' })))
    expect(small.headers.get('Content-Type')).toBe('image/png')
    expect(await sharp(Buffer.from(small.body)).metadata()).toMatchObject({ width: 160 })

    const one = await exportOne(routeArgs(operatorGet(listed.exportUrl), { jobId }))
    expect(one.headers.get('Content-Type')).toBe('application/zip')
    const files = await readZip(Buffer.from(await one.arrayBuffer()))
    const names = [...files.keys()].filter((n) => n.includes(jobId)).map((n) => n.split('/').pop()).sort()
    expect(names).toEqual(['case.json', 'input.jpg', 'output.png', 'studio-matte.png'])
    const json = JSON.parse([...files].find(([n]) => n.endsWith('/case.json'))![1].toString()) as FeedbackCaseJson
    expect(json).toMatchObject({ format: 'facet-feedback-case/1', job_id: jobId, note: 'console sees this', tool: 'background-remover' })

    const all = await readZip(Buffer.from(await (await exportAll(routeArgs(operatorGet('/console/feedback/export')))).arrayBuffer()))
    expect([...all.keys()].some((n) => n.includes(jobId) && n.endsWith('/input.jpg'))).toBe(true)
    const index = JSON.parse(all.get('feedback-export.json')!.toString()) as { cases: string[] }
    expect(index.cases.some((c) => c.endsWith(jobId))).toBe(true)

    // Not an operator: the site's 404.
    const refused = await consoleList(routeArgs(new Request(`${BASE}/console/feedback`, { headers: { cookie: (await sessionCookieHeader(owner.token)).split(';')[0]! } }))).catch((thrown: unknown) => thrown)
    expect((refused as Response).status).toBe(404)
  })
})
