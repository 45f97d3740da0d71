// Queue admission under concurrency, on PGlite and PostgreSQL (docs/decisions/085): 40 submissions
// at once from two accounts never leave more than TOOL_QUEUE_LIMIT runs waiting, one account never
// more than its share, the other account is still admitted, every refusal carries Retry-After, and
// nothing refused is charged (each account's balance equals its ledger). This process runs no worker
// (WORKER_CONCURRENCY=0), so admitted jobs stay waiting and the counts are exact. Batches follow
// the same rule in their own pool.
import { randomUUID } from 'node:crypto'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { executeTx, getDb } from '~/db/db.server'
import { MAX_BATCH_FILES } from '~/catalog/batches'
import { grant } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { action as postBatch } from '~/routes/api.batches._index'
import { action as postJob } from '~/routes/api.jobs._index'
import { balanceOf, fileOf, fixture, newUser, ledgerSum, type TestCaller } from '../../../tests/support/tools'
import { BASE, formRequest, readResult, routeArgs } from '../../../tests/support/requests'
import { countWaiting } from './admission.server'
import { insertJob } from './jobs.server'

const SETTINGS = ['WORKER_CONCURRENCY', 'TOOL_QUEUE_LIMIT', 'JOBS_WAITING_PER_ACCOUNT', 'BATCH_QUEUE_LIMIT'] as const

function configure(values: Partial<Record<(typeof SETTINGS)[number], string>>): void {
  for (const name of SETTINGS) delete process.env[name]
  Object.assign(process.env, { WORKER_CONCURRENCY: '0' }, values)
  resetConfigForTests()
}

beforeAll(() => configure({}))

/** The accounts made here: their jobs (never run) and batches are deleted at the end, so that files run after this one on the same PostgreSQL schema do not find a full queue. */
const accounts: string[] = []

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
  if (accounts.length) {
    await getDb().deleteFrom('batches').where('account_id', 'in', accounts).execute()
    await getDb().deleteFrom('tool_jobs').where('account_id', 'in', accounts).execute()
  }
  for (const name of SETTINGS) delete process.env[name]
  resetConfigForTests()
})

/** A signed-in account with credits for every run these tests send (so only admission refuses). */
async function account(): Promise<TestCaller> {
  const caller = await newUser()
  accounts.push(caller.accountId)
  await grant({ accountId: caller.accountId, amount: 100, kind: 'adjustment', description: 'Admission test' })
  return caller
}

const photo = () => fileOf(fixture('photos/noface-rocket.jpg'), 'rocket.jpg', 'image/jpeg')

async function submit(caller: TestCaller, headers: Record<string, string> = {}) {
  return readResult(await postJob(routeArgs(formRequest('/api/jobs/', { tool: 'background-remover', image: photo() }, { headers: { ...caller.headers, ...headers } }))))
}

async function waitingOf(accountId: string): Promise<number> {
  return (await countWaiting('single', accountId)).account
}

/** 20 submissions from each of two new accounts, all at once; the queue's waiting runs before them. */
async function race() {
  const [first, second] = [await account(), await account()]
  const balances = [await balanceOf(first), await balanceOf(second)]
  const callers = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? first : second))
  const answers = await Promise.all(callers.map((caller) => submit(caller)))
  const outcome = (caller: TestCaller) => answers.filter((_, i) => callers[i] === caller)
  return { first, second, balances, answers, outcome }
}

describe('single runs: 40 concurrent submissions from two accounts', () => {
  it('one account holds at most its share (half the queue by default); the other is admitted too; refusals are 429 with Retry-After and charge nothing', async () => {
    // Runs other test files left waiting on a shared PostgreSQL schema (none on PGlite) stay out of the way.
    const waitingBefore = (await countWaiting('single', null)).all
    configure({ TOOL_QUEUE_LIMIT: String(waitingBefore + 8), JOBS_WAITING_PER_ACCOUNT: '4' })
    const { first, second, balances, answers, outcome } = await race()
    for (const [i, caller] of [first, second].entries()) {
      const mine = outcome(caller)
      const admitted = mine.filter((a) => a.status === 202)
      const refused = mine.filter((a) => a.status !== 202)
      // A share of 4 each: exactly 4 admitted whatever the order, 16 refused.
      expect(admitted).toHaveLength(4)
      expect(await waitingOf(caller.accountId)).toBe(4)
      for (const answer of refused) {
        expect(answer.status).toBe(429)
        expect(Number(answer.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1)
        expect(answer.headers.get('X-Credits-Charged')).toBe('0')
        expect(answer.body.error).toMatch(/one account may have at most 4 waiting/)
      }
      // Charged for the admitted runs only (the remover costs 1), and the ledger says the same.
      expect(await balanceOf(caller)).toBe(balances[i]! - admitted.length)
      const ledger = await ledgerSum(caller.accountId)
      expect(ledger.balance).toBe(ledger.sum)
    }
    expect(answers.filter((a) => a.status === 202)).toHaveLength(8)
    expect((await countWaiting('single', null)).all).toBe(waitingBefore + 8)
  })

  it('the default share is half of TOOL_QUEUE_LIMIT', async () => {
    // Room for the runs already waiting, then a queue of 8 more: the account's default share is half of the limit.
    const waitingBefore = (await countWaiting('single', null)).all
    const limit = 2 * waitingBefore + 8
    configure({ TOOL_QUEUE_LIMIT: String(limit) })
    const busy = await account()
    const share = limit / 2
    // One by one: the run after the share is the first refused (429), though the queue has room.
    const statuses: number[] = []
    for (let i = 0; i <= share; i++) statuses.push((await submit(busy, i === 0 ? { 'Idempotency-Key': 'first' } : {})).status)
    expect(statuses).toEqual([...Array<number>(share).fill(202), 429])
    // A retry of a run already queued is answered with that run, not refused as a new one...
    const retried = await submit(busy, { 'Idempotency-Key': 'first' })
    expect(retried.status).toBe(200)
    expect(retried.headers.get('Idempotent-Replayed')).toBe('true')
    // ...while a new key is a new run, refused past the share (by the check in the transaction).
    expect((await submit(busy, { 'Idempotency-Key': 'second' })).status).toBe(429)
    expect(await waitingOf(busy.accountId)).toBe(share)
  })

  it('the queue limit is never passed when the shares together exceed it: 503 for the queue, 429 for a share, both with Retry-After', async () => {
    // Runs left waiting by the first test stay: the limit leaves room for 8 more.
    const waitingBefore = (await countWaiting('single', null)).all
    configure({ TOOL_QUEUE_LIMIT: String(waitingBefore + 8), JOBS_WAITING_PER_ACCOUNT: '5' })
    const { first, second, balances, answers, outcome } = await race()
    const admitted = answers.filter((a) => a.status === 202)
    expect(admitted).toHaveLength(8)
    expect((await countWaiting('single', null)).all).toBe(waitingBefore + 8)
    for (const [i, caller] of [first, second].entries()) {
      const mine = outcome(caller).filter((a) => a.status === 202).length
      // At most the share of 5, so the other account had at least 3.
      expect(mine).toBeGreaterThanOrEqual(3)
      expect(mine).toBeLessThanOrEqual(5)
      expect(await waitingOf(caller.accountId)).toBe(mine)
      expect(await balanceOf(caller)).toBe(balances[i]! - mine)
      const ledger = await ledgerSum(caller.accountId)
      expect(ledger.balance).toBe(ledger.sum)
    }
    const refused = answers.filter((a) => a.status !== 202)
    expect(refused).toHaveLength(32)
    for (const answer of refused) {
      expect([429, 503]).toContain(answer.status)
      expect(Number(answer.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1)
    }
    // The queue filled before either share did at least once.
    expect(refused.some((a) => a.status === 503)).toBe(true)
  })
})

describe('batches: the same rule in their own pool', () => {
  async function postBatchOf(caller: TestCaller, files: number) {
    const form = new FormData()
    form.append('tool', 'background-remover')
    for (let i = 0; i < files; i++) {
      const bytes = await sharp(fixture('photos/noface-rocket.jpg')).resize(120 + i, 80).jpeg().toBuffer()
      form.append('image', fileOf(bytes, `p${i}.jpg`, 'image/jpeg'))
    }
    return readResult(await postBatch(routeArgs(new Request(`${BASE}/api/batches/`, { method: 'POST', body: form, headers: caller.headers }))))
  }

  /** `count` items of a batch of the account's, waiting (rows only: nothing will run them). */
  async function fillBatchQueue(accountId: string, count: number): Promise<void> {
    const batchId = randomUUID()
    await executeTx(getDb(), async (trx) => {
      await trx.insertInto('batches').values({ id: batchId, account_id: accountId, api_key_id: null, tool: 'background-remover', total: count }).execute()
      for (let position = 0; position < count; position++) {
        await insertJob(
          { id: randomUUID(), accountId, tool: 'background-remover', options: {}, originalName: 'x.jpg', bytes: Buffer.from('x'), width: 1, height: 1, notes: [], idempotencyKey: null, fingerprint: 'x', chargeTransactionId: null, batchId, batchPosition: position },
          trx,
        )
      }
    })
  }

  it('an account with a full batch waiting is refused 429 for the next, another account is admitted; batch items never count against the single runs', async () => {
    // The pool holds 100 more than it holds now: files before this one in the worker's schema may have left batch items waiting.
    const batchItemsBefore = (await countWaiting('batch', null)).all
    configure({ TOOL_QUEUE_LIMIT: '8', BATCH_QUEUE_LIMIT: String(batchItemsBefore + MAX_BATCH_FILES) })
    const [busy, other] = [await account(), await account()]
    const singlesBefore = (await countWaiting('single', null)).all
    await fillBatchQueue(busy.accountId, MAX_BATCH_FILES - 1)
    expect((await countWaiting('single', null)).all).toBe(singlesBefore)

    const refused = await postBatchOf(busy, 2)
    expect(refused.status).toBe(429)
    expect(refused.body.error).toMatch(/99 batch files waiting for a worker and this batch adds 2; one account may have at most 100 waiting/)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1)
    expect(await countWaiting('batch', busy.accountId)).toMatchObject({ account: MAX_BATCH_FILES - 1 })

    // The pool has room for 100 items: the other account's 2 do not fit either (503, the studio is busy)...
    const full = await postBatchOf(other, 2)
    expect(full.status).toBe(503)
    expect(Number(full.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1)
    // ...its 1 does.
    const admitted = await postBatchOf(other, 1)
    expect(admitted.status).toBe(202)
    expect(await countWaiting('batch', other.accountId)).toMatchObject({ account: 1 })
  })
})
