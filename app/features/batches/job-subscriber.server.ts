// A batch hears its items' runs (jobs/lifecycle.server.ts): an item is charged when its run
// starts (docs/decisions/055), and the batch completes in the outcome transaction of its last item.
// Registered in features/wiring.server.ts.
import type { JobSubscriber } from '~/features/jobs/door.server'
import { chargeItemOnStart, settleBatch } from './items.server'

export const batchJobSubscriber: JobSubscriber = {
  name: 'batches',
  starting: async (job) => {
    if (!job.batch_id) return undefined
    const charged = await chargeItemOnStart(job)
    if (charged === null) return undefined
    return typeof charged === 'object' ? charged : { chargeTransactionId: charged }
  },
  ended: async (finished, trx) => {
    if (finished.batch_id) await settleBatch(finished.batch_id, trx)
  },
}
