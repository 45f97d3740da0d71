// A guest's runs carried into the account they create (decision 136): when an email is verified, in
// the verification's own transaction, by the browser that signed up (decision 162), the ended runs of
// its visitor, its completed batches and the results of those runs move to the new account, so its
// history and downloads follow the person. Credits do not move: the guest balance and its ledger rows stay the visitor's.
// Not carried: a visitor shared by every browser past an address's identity budget (decision 080),
// whose runs are not this person's alone; runs still waiting or running, and a batch still running
// (their charges and results are written to the visitor by the worker that ends them).
import { sql, type Transaction } from 'kysely'
import type { Database } from '~/db/schema'
import { verifyEmail } from '~/features/auth/accounts.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'

export interface CarriedRuns {
  jobs: number
  batches: number
  results: number
}

const NOTHING: CarriedRuns = { jobs: 0, batches: 0, results: 0 }

export async function carryGuestRuns(visitorId: string | null, userId: string, trx: Transaction<Database>): Promise<CarriedRuns> {
  if (!visitorId) return NOTHING
  const guest = await trx
    .selectFrom('credit_accounts as a')
    .innerJoin('visitors as v', 'v.id', 'a.visitor_id')
    .select('a.id')
    .where('v.id', '=', visitorId)
    .where('v.shared_address', 'is', null)
    .executeTakeFirst()
  if (!guest) return NOTHING
  const accountId = await ensureUserAccount(userId, trx)
  const runningBatches = trx.selectFrom('batches').select('id').where('account_id', '=', guest.id).where('status', '=', 'running')
  const jobs = await trx
    .updateTable('tool_jobs as j')
    .set({ account_id: accountId, user_id: userId })
    .where('j.account_id', '=', guest.id)
    .where('j.status', 'in', ['succeeded', 'failed'])
    .where((eb) => eb.or([eb('j.batch_id', 'is', null), eb('j.batch_id', 'not in', runningBatches)]))
    // An idempotency key the account has used already stays with the guest (the key must stay unique).
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('tool_jobs as mine')
            .select(sql`1`.as('one'))
            .where('mine.account_id', '=', accountId)
            .whereRef('mine.idempotency_key', '=', 'j.idempotency_key')
            .where(sql<boolean>`mine.idempotency_scope is not distinct from j.idempotency_scope`),
        ),
      ),
    )
    .returning('j.result_id')
    .execute()
  const resultIds = jobs.map((j) => j.result_id).filter((id): id is string => id !== null)
  const batches = await trx.updateTable('batches').set({ account_id: accountId }).where('account_id', '=', guest.id).where('status', '=', 'completed').executeTakeFirst()
  const results = resultIds.length
    ? await trx.updateTable('results').set({ owner_account_id: accountId }).where('owner_account_id', '=', guest.id).where('id', 'in', resultIds).executeTakeFirst()
    : { numUpdatedRows: 0n }
  return { jobs: jobs.length, batches: Number(batches.numUpdatedRows), results: Number(results.numUpdatedRows) }
}

/**
 * Spends a verification link and, in the same transaction, carries the guest runs of the browser that
 * asked for the link into the account (decision 136), only when that same browser opens it: a link
 * forwarded to someone else never moves their work into an account they did not create (decision
 * 162). The verify routes call this; auth itself knows nothing of history.
 */
export function verifyEmailCarryingGuestRuns(
  token: string,
  options: { userAgent?: string | null; browserKey?: string | null; visitorId?: string | null; confirmed?: boolean },
) {
  const { visitorId, ...verifying } = options
  return verifyEmail(token, {
    ...verifying,
    onSameBrowser: async (userId, trx) => {
      await carryGuestRuns(visitorId ?? null, userId, trx)
    },
  })
}
