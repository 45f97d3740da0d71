// The webhooks hear a job's end (tools/jobs/lifecycle.server.ts): `job.succeeded` / `job.failed`,
// queued in the outcome's own transaction, so an outcome that rolls back never announced anything.
// Registered in features/wiring.server.ts.
import type { JobSubscriber } from '~/features/tools/jobs/lifecycle.server'
import { creditsCharged } from '~/features/tools/jobs/jobs.server'
import { resultUrl } from '~/features/tools/ui/page-result'
import { emitEvent, prepareWebhooks } from './endpoints.server'

export const webhookJobSubscriber: JobSubscriber = {
  name: 'webhooks',
  // pg-boss's queue must exist before a transaction emits into it.
  prepare: prepareWebhooks,
  ended: async (finished, trx) => {
    await emitEvent(
      {
        accountId: finished.account_id,
        type: finished.status === 'succeeded' ? 'job.succeeded' : 'job.failed',
        data: {
          id: finished.id,
          tool: finished.tool,
          status: finished.status,
          result_url: finished.result_id ? resultUrl(finished.result_id) : null,
          error: finished.error,
          credits_charged: creditsCharged(finished),
        },
      },
      trx,
    )
  },
}
