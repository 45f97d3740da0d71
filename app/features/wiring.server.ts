// The one place where features hand each other what a lower room must not import from a higher one
// (docs/decisions/118 and 170): the job events' subscribers, the upload limits the body-size check
// reads, what the tools' runs keep for the corrections, and the tools the job platform runs. Every process that runs or ends jobs or serves requests imports this module first: server.ts,
// app/entry.server.tsx (the Remix bundle), scripts/worker.ts, the benches that run jobs and the
// integration tests' setup (tests/support/setup-db.ts). A process that forgot it fails on its first job
// start or end (jobs/lifecycle.server.ts refuses to publish unwired), its first request
// (security/body-limit.server.ts refuses to guess a limit) or its first cutout or face blur
// (tools/correction-hooks.server.ts), never silently.
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { batchFormLimits } from '~/features/batches/api.server'
import { batchJobSubscriber } from '~/features/batches/job-subscriber.server'
import { readDetectedFaces } from '~/features/corrections/corrections.server'
import { keepCutout, keepFaces } from '~/features/corrections/keep.server'
import { insertResultEdit } from '~/features/corrections/store.server'
import { REMOVEBG_BODY_LIMIT } from '~/features/removebg/adapter.server'
import { handUploadLimits } from '~/features/security/body-limit.server'
import { handCorrectionHooks } from '~/features/tools/correction-hooks.server'
import { toolCost } from '~/features/tools/costs.server'
import { nameForType } from '~/features/tools/output-format.server'
import { runnerFor } from '~/features/tools/runners/index.server'
import { asToolError } from '~/features/tools/submission.server'
import { capTestResult } from '~/features/tools/test-mode.server'
import { handTools } from '~/features/jobs/runners.server'
import { JOB_FORM_LIMITS } from '~/features/tools/jobs-api.server'
import { markJobSubscribersWired, subscribeToJobs } from '~/features/jobs/lifecycle.server'
import { toolFormBodyLimit } from '~/features/tools/page-action.server'
import { webhookJobSubscriber } from '~/features/webhooks/job-subscriber.server'

// Order is the order they hear a job's end: the job's own webhook event before its batch's
// `batch.completed`.
subscribeToJobs(webhookJobSubscriber)
subscribeToJobs(batchJobSubscriber)
markJobSubscribersWired()

handUploadLimits({
  multipart: new Map<string, () => number>([
    ...Object.values(TOOLS).flatMap((t): Array<[string, () => number]> => [
      [t.apiPath, () => toolFormBodyLimit(t.slug as ToolSlug)],
      [`/tools/${t.slug}/`, () => toolFormBodyLimit(t.slug as ToolSlug)],
    ]),
    ['/api/jobs/', () => JOB_FORM_LIMITS.bodyLimit],
    ['/api/batches/', () => batchFormLimits().bodyLimit],
    ['/tools/batch/', () => batchFormLimits().bodyLimit],
  ]),
  removeBg: REMOVEBG_BODY_LIMIT,
})

handCorrectionHooks({ keepCutout, keepFaces, detectedFaces: readDetectedFaces })

// The job platform runs the tools without naming them (it stands below them): their runners, their words
// for a failure, their output names, a test key's result cap and their prices, and where a run's kept material is stored.
handTools({ runnerFor, failureOf: asToolError, nameForType, capTestResult, cost: toolCost, storeKept: insertResultEdit })
