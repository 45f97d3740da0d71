// Property-based tests of the request shapes (issue 34 item 7, decision 172): arbitrary multipart field
// names, values and orders, option values out of range, of the wrong type, unicode or huge, and arbitrary
// JSON bodies, sent to a tool's /api route, POST /api/jobs/ and POST /api/batches/. Each answer is a 2xx
// or a 4xx with a message, never a 5xx, and a refusal charges nothing. numRuns is capped: each run is a
// real request through the route and the ledger.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { grant } from '~/features/credits/ledger.server'
import { action as batchAction } from '~/routes/api.batches._index'
import { action as jobAction } from '~/routes/api.jobs._index'
import { action as svgAction } from '~/routes/api.svg2image.convert'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { emptyToolQueue, fileOf, ledgerSum, newUser, type TestCaller } from '../../../tests/support/tools'

const RUNS = 25
const SQUARE = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#0a0"/></svg>'

/** Text of every kind a client might send: empty, ASCII, any unicode, numbers as text, and long. */
const text = fc.oneof(
  fc.constantFrom('', '0', '-1', '1e309', 'NaN', 'true', 'null', '[]', '{}', ' 2 ', '0x10', '1.5', '３'),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(n)),
)
/** Field names: the tools' own, and anything else. */
const fieldName = fc.oneof(
  fc.constantFrom('svg', 'image', 'format', 'scale', 'background', 'blur', 'denoise', 'tool', 'size', 'bg_color', 'type', 'crop'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
)
const fileKind = fc.constantFrom('svg', 'text', 'empty', 'none')
/** Names every object has through its prototype: a lookup by `in` once took "valueOf" for a tool (a 500 CI found). */
const PROTOTYPE_NAMES = fc.constantFrom('valueOf', 'constructor', '__proto__', 'toString', 'hasOwnProperty')

function fileFor(kind: string): Blob | null {
  if (kind === 'svg') return fileOf(Buffer.from(SQUARE), 'square.svg', 'image/svg+xml')
  if (kind === 'text') return fileOf(Buffer.from('not a picture'), 'notes.png', 'image/png')
  if (kind === 'empty') return fileOf(Buffer.alloc(0), 'empty.svg', 'image/svg+xml')
  return null
}

async function funded(): Promise<TestCaller> {
  const user = await newUser()
  await grant({ accountId: user.accountId, amount: 200, kind: 'adjustment', description: 'request shapes' })
  return user
}

/** The rule: a 2xx, or a 4xx carrying a message and charging nothing; the balance always equals its ledger. */
async function expectSound(answer: { status: number; body: any }, caller: TestCaller, before: number, what: string) {
  const where = `${what} → ${answer.status} ${answer.body instanceof ArrayBuffer ? '' : JSON.stringify(answer.body)}`
  expect(answer.status, where).toBeLessThan(500)
  expect(answer.status, where).toBeGreaterThanOrEqual(200)
  const after = await ledgerSum(caller.accountId)
  expect(after.balance, where).toBe(after.sum)
  if (answer.status >= 400) {
    expect(typeof answer.body?.error === 'string' && answer.body.error.length > 0, where).toBe(true)
    expect(after.balance, where).toBe(before)
  }
}

function multipartRequest(path: string, caller: TestCaller, parts: Array<[string, string | Blob]>): Request {
  const form = new FormData()
  for (const [name, value] of parts) form.append(name, value)
  return new Request(BASE + path, { method: 'POST', body: form, headers: caller.headers })
}

describe('arbitrary multipart forms to POST /api/svg2image/convert/', () => {
  it('answers every order, name and value with a 2xx or a 4xx with a message, charging nothing for a refusal', async () => {
    const caller = await funded()
    await fc.assert(
      fc.asyncProperty(fileKind, fc.array(fc.tuple(fieldName, text), { maxLength: 8 }), fc.nat(), async (kind, fields, at) => {
        const parts: Array<[string, string | Blob]> = [...fields]
        const file = fileFor(kind)
        if (file) parts.splice(at % (parts.length + 1), 0, ['svg', file])
        const before = (await ledgerSum(caller.accountId)).balance
        const answer = await readResult(await svgAction(routeArgs(multipartRequest('/api/svg2image/convert/', caller, parts))))
        await expectSound(answer, caller, before, JSON.stringify(parts.map(([n, v]) => [n, typeof v === 'string' ? v.slice(0, 60) : 'file'])))
      }),
      { numRuns: RUNS },
    )
  }, 300_000)
})

describe('arbitrary forms and JSON to POST /api/jobs/ and POST /api/batches/', () => {
  const routes = [
    ['/api/jobs/', jobAction],
    ['/api/batches/', batchAction],
  ] as const

  for (const [path, action] of routes) {
    it(`${path}: any JSON body is a 4xx with a message`, async () => {
      const caller = await funded()
      await fc.assert(
        fc.asyncProperty(fc.json({ maxDepth: 3 }), fc.constantFrom('application/json', 'text/plain', 'multipart/form-data', 'multipart/form-data; boundary=x'), async (body, type) => {
          const before = (await ledgerSum(caller.accountId)).balance
          const request = new Request(BASE + path, { method: 'POST', body, headers: { ...caller.headers, 'content-type': type } })
          const answer = await readResult(await action(routeArgs(request)))
          await expectSound(answer, caller, before, `${type} ${body.slice(0, 80)}`)
          expect(answer.status, body).toBeGreaterThanOrEqual(400)
        }),
        { numRuns: RUNS },
      )
    }, 300_000)

    it(`${path}: any tool and options with a file no tool takes are a 4xx with a message`, async () => {
      const caller = await funded()
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.constantFrom('background-remover', 'face-blurrer', 'face-restorer', 'image-enhancer', 'svg-converter'), PROTOTYPE_NAMES, text),
          fc.array(fc.tuple(fieldName, text), { maxLength: 6 }),
          fc.constantFrom('text', 'empty', 'none'),
          async (tool, fields, kind) => {
            const parts: Array<[string, string | Blob]> = [['tool', tool], ...fields]
            const file = fileFor(kind)
            if (file) for (const field of ['image', 'svg']) parts.push([field, file])
            const before = (await ledgerSum(caller.accountId)).balance
            const answer = await readResult(await action(routeArgs(multipartRequest(path, caller, parts))))
            await expectSound(answer, caller, before, JSON.stringify(parts.map(([n, v]) => [n, typeof v === 'string' ? v.slice(0, 60) : 'file'])))
            expect(answer.status).toBeGreaterThanOrEqual(400)
          },
        ),
        { numRuns: RUNS },
      )
      await emptyToolQueue()
    }, 300_000)
  }
})
