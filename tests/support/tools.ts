// Shared by the tool endpoint tests: callers with known balances and real multipart requests.
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { crc32 } from 'node:zlib'
import { sql } from 'kysely'
import { executeTx, getDb } from '~/db/db.server'
import { createSession } from '~/features/auth/session.server'
import { resolveCaller } from '~/features/account/caller.server'
import { charge } from '~/features/credits/ledger.server'
import { insertJob, type ToolJobInfo } from '~/features/jobs/jobs.server'
import { PNG_INFLATED_AT_DOOR_BYTES, pngFilteredBytes } from '~/features/tools/file-complete.server'
import { TOOL_JOB_QUEUE, toolQueues } from '~/features/jobs/queue.server'
import { reserveSlotHere } from '~/features/jobs/worker.server'
import { expect, vi } from 'vitest'
import { BASE, formRequest } from './requests'

export const fixture = (path: string) => readFileSync(`tests/fixtures/${path}`)

/**
 * A PNG whose header claims twice the rows its data holds: whole by its structure, and too large for the door
 * to inflate its pixels (PNG_INFLATED_AT_DOOR_BYTES), so it passes the door's checks (type, pixel limits,
 * file-complete.server.ts) and is charged, but its pixels end early and it fails in its run ("damaged or
 * truncated"), refunded. A file cut short, or a small one claiming more pixels, is refused at the door instead.
 */
export function pngEndingEarly(path = 'photos/noface-coffee.png'): Buffer {
  const out = Buffer.from(fixture(path))
  out.writeUInt32BE(out.readUInt32BE(20) * 2, 20)
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29)
  const claimed = { width: out.readUInt32BE(16), height: out.readUInt32BE(20), bitDepth: out[24]!, colourType: out[25]!, interlaced: out[28] === 1 }
  if ((pngFilteredBytes(claimed) ?? 0) <= PNG_INFLATED_AT_DOOR_BYTES) throw new Error(`${path} is small enough for the door to find its pixels missing`)
  return out
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
