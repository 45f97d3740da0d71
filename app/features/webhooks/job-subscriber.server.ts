// The webhooks hear a job's end (jobs/lifecycle.server.ts): `job.succeeded` / `job.failed`,
// queued in the outcome's own transaction, so an outcome that rolls back never announced anything.
// Registered in features/wiring.server.ts.
import type { Transaction } from 'kysely'
import type { Database } from '~/db/schema'
import type { JobSubscriber } from '~/features/jobs/lifecycle.server'
import { creditsCharged, type ToolJobInfo } from '~/features/jobs/jobs.server'
import { resultUrl } from '~/features/jobs/view'
import { emitEvent, prepareWebhooks } from './endpoints.server'

/**
 * Whether the account's endpoints may carry the run's result link (decision 162). A person's own
 * endpoints hear their own runs. A team's endpoints belong to its owners and admins, and history
 * shows each member only their own runs: a run a member sent (session or personal key) reaches the
 * team's endpoints without its result link; a run sent with the team's own key is the team's.
 */
async function resultLinkReachesEndpoints(job: ToolJobInfo, trx: Transaction<Database>): Promise<boolean> {
  const account = await trx.selectFrom('credit_accounts').select('team_id').where('id', '=', job.account_id).executeTakeFirst()
  if (!account?.team_id) return true
  if (!job.api_key_id) return false
  const key = await trx.selectFrom('api_keys').select('team_id').where('id', '=', job.api_key_id).executeTakeFirst()
  return key?.team_id === account.team_id
}

export const webhookJobSubscriber: JobSubscriber = {
  name: 'webhooks',
  // pg-boss's queue must exist before a transaction emits into it.
  prepare: prepareWebhooks,
  ended: async (finished, trx) => {
    await emitEvent(
      {
        accountId: finished.account_id,
        type: finished.status === 'succeeded' ? 'job.succeeded' : 'job.failed',
        // Made only when the account has an endpoint for it: the result link's question costs a read.
        data: async () => ({
          id: finished.id,
          tool: finished.tool,
          status: finished.status,
          result_url: finished.result_id && (await resultLinkReachesEndpoints(finished, trx)) ? resultUrl(finished.result_id) : null,
          error: finished.error,
          credits_charged: creditsCharged(finished),
        }),
      },
      trx,
    )
  },
}
