// The one place where features subscribe to each other's events (docs/decisions/118). Every process
// that runs or ends jobs imports this module first: server.ts, app/entry.server.tsx (the Remix
// bundle), scripts/worker.ts, the benches that run jobs and the integration tests' setup
// (tests/support/setup-db.ts). A process that forgot it fails on its first job start or end
// (tools/jobs/lifecycle.server.ts refuses to publish unwired), never silently.
import { batchJobSubscriber } from '~/features/batches/job-subscriber.server'
import { markJobSubscribersWired, subscribeToJobs } from '~/features/tools/jobs/lifecycle.server'
import { webhookJobSubscriber } from '~/features/webhooks/job-subscriber.server'

// Order is the order they hear a job's end: the job's own webhook event before its batch's
// `batch.completed`.
subscribeToJobs(webhookJobSubscriber)
subscribeToJobs(batchJobSubscriber)
markJobSubscribersWired()
