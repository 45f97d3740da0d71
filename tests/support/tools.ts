// Shared by the tool endpoint tests: callers with known balances and real multipart requests.
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { deflateSync } from 'node:zlib'
import { sql } from 'kysely'
import { executeTx, getDb } from '~/db/db.server'
import { createSession } from '~/features/auth/session.server'
import { resolveCaller } from '~/features/account/caller.server'
import { charge } from '~/features/credits/ledger.server'
import { insertJob, type ToolJobInfo } from '~/features/jobs/jobs.server'
import { TOOL_JOB_QUEUE, toolQueues } from '~/features/jobs/queue.server'
import { reserveSlotHere } from '~/features/jobs/worker.server'
import { expect, vi } from 'vitest'
import { PNG_SIGNATURE, pngChunk } from './png'
import { BASE, formRequest } from './requests'

export const fixture = (path: string) => readFileSync(`tests/fixtures/${path}`)

/**
 * A PNG that passes every check the door makes (type, pixel limits, every chunk whole and every pixel's bytes
 * there: file-complete.server.ts) but one of whose rows names a filter PNG does not have. The door counts the
 * pixels' bytes and does not unfilter them, so the file is admitted (and a queued run charged); the run's
 * decoder refuses it ("damaged or truncated") and the run fails, refunded.
 */
export function pngWithUnknownFilter(width = 64, height = 48): Buffer {
  const rowBytes = 1 + width * 3
  const rows = Buffer.alloc(rowBytes * height, 0x80)
  for (let y = 0; y < height; y++) rows[y * rowBytes] = y === height >> 1 ? 9 : 0 // filters are 0-4
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8-bit RGB, deflate, filtered per row, not interlaced
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))])
}

export function randomIp(): string {
  const n = () => Math.floor(Math.random() * 250) + 1
  return `10.${n()}.${n()}.${n()}`
}

export interface TestCaller {
  headers: Record<string, string>
  accountId: string
}

export async function newVisitor(): Promise<TestCaller> {
  const ip = randomIp()
  const resolved = await resolveCaller(new Request(BASE + '/', { headers: { 'x-facet-client-ip': ip } }))
  if (resolved.kind !== 'caller' || !resolved.setCookie) throw new Error(`no visitor: ${resolved.kind}`)
  return { headers: { cookie: resolved.setCookie.split(';')[0]!, 'x-facet-client-ip': ip }, accountId: resolved.caller.accountId }
}

export async function newUser(): Promise<TestCaller & { token: string }> {
  const user = await getDb()
    .insertInto('users')
    .values({ email: `tools-${randomUUID()}@example.test`, password_hash: 'x', first_name: 'Tess', last_name: 'Ter' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const { token } = await createSession(user.id)
  const headers = { authorization: `Token ${token}`, 'x-facet-client-ip': randomIp() }
  const resolved = await resolveCaller(new Request(BASE + '/', { headers }))
  if (resolved.kind !== 'caller') throw new Error(resolved.kind)
  return { headers, accountId: resolved.caller.accountId, token }
}

export async function balanceOf(caller: TestCaller): Promise<number> {
  const resolved = await resolveCaller(new Request(BASE + '/', { headers: caller.headers }), { create: false })
  if (resolved.kind !== 'caller') throw new Error(resolved.kind)
  return resolved.balance
}

/** An account's balance and the sum of its ledger: equal when nothing was charged that was not also recorded. */
export async function ledgerSum(accountId: string): Promise<{ balance: number; sum: number }> {
  return getDb()
    .selectFrom('credit_accounts')
    .select(['balance', sql<number>`(select coalesce(sum(delta), 0)::int from credit_transactions t where t.account_id = credit_accounts.id)`.as('sum')])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow()
}

export function fileOf(bytes: Buffer | Uint8Array, name: string, type = 'application/octet-stream'): File {
  return new File([new Uint8Array(bytes)], name, { type })
}

export function toolRequest(
  path: string,
  fields: Record<string, string | Blob>,
  headers: Record<string, string> = { 'x-facet-client-ip': randomIp() },
): Request {
  return formRequest(path, fields, { headers })
}

/**
 * A remover job charged 1 credit and written as a submitting request writes it, but with no pg-boss
 * job: no worker takes it. `status: 'running'` (with its attempts) makes it one a worker elsewhere holds.
 */
export async function chargedJob(caller: TestCaller, state: { status?: 'queued' | 'running'; attempts?: number } = {}): Promise<ToolJobInfo> {
  const id = randomUUID()
  return executeTx(getDb(), async (trx) => {
    const charged = await charge({ accountId: caller.accountId, amount: 1, toolSlug: 'background_remover', idempotencyKey: `job:${id}` }, trx)
    if (!charged.ok) throw new Error('no charge')
    const job = await insertJob(
      { id, accountId: caller.accountId, tool: 'background-remover', options: {}, originalName: 'x.jpg', bytes: Buffer.from('x'), width: 1, height: 1, notes: [], idempotencyKey: null, fingerprint: 'x', chargeTransactionId: charged.transactionId },
      trx,
    )
    if (!state.status || state.status === 'queued') return job
    const { upload_iv: _iv, upload_auth_tag: _tag, upload_ciphertext: _bytes, ...running } = await trx
      .updateTable('tool_jobs')
      .set({ status: state.status, attempts: state.attempts ?? 1 })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return running
  })
}

/** Deletes every run still queued: a file that leaves runs queued calls it last, so the next file in its vitest worker's schema does not inherit them. */
export async function emptyToolQueue(): Promise<void> {
  await (await toolQueues()).deleteQueuedJobs(TOOL_JOB_QUEUE)
}

/**
 * For a file whose tests run jobs in this process's worker: files before it in the vitest worker's schema may
 * have left runs queued, which the worker would take mid-test. Empties the queue, then waits until a run slot
 * is free (the signal, not a guessed time).
 */
export async function fromEmptyQueueAndFreeSlot(): Promise<void> {
  await emptyToolQueue()
  await vi.waitFor(
    async () => {
      const slot = await reserveSlotHere()
      expect(slot).not.toBeNull()
      slot!.release()
    },
    { timeout: 120_000, interval: 100 },
  )
}
