// Sending a webhook: signed per Standard Webhooks (the standardwebhooks library: webhook-id,
// webhook-timestamp, webhook-signature), posted through the address guard (public addresses only,
// the connection pinned to the address checked), 10 s at most, redirects not followed, and only a
// short excerpt of the answer kept.
// Failures are retried on a schedule of about a day; each attempt is one pg-boss job.
import type { ClientRequest } from 'node:http'
import { fromKysely, type Job } from 'pg-boss'
import { Webhook } from 'standardwebhooks'
import { config } from '~/config.server'
import { getDb } from '~/db/db.server'
import { getBoss } from '~/features/queue/boss.server'
import { logger } from '~/utils/logger.server'
import { countWebhookDelivery } from '~/features/observability/metrics.server'
import { existingSingleton, replaceSingleton } from '~/utils/singleton.server'
import { guardedRequest, type AddressOverrides } from './address-guard.server'
import { openSecret, prepareWebhooks, WEBHOOK_QUEUE, type DeliveryJob } from './endpoints.server'

export const WEBHOOK_TIMEOUT_MS = 10_000
export const RESPONSE_EXCERPT_BYTES = 512
/**
 * Seconds to wait after each failed attempt (the schedule Standard Webhooks' reference service
 * uses): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Eight attempts over about 27 hours.
 */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const
export const WEBHOOK_USER_AGENT = 'FacetStudio-Webhooks/1'

export type SendOutcome = { ok: boolean; statusCode: number | null; excerpt: string | null; error: string | null }

/** One signed POST. Never throws: every failure comes back as an outcome to log. */
export async function sendSigned(
  target: string,
  secret: string,
  messageId: string,
  body: string,
  now = new Date(),
  overrides?: AddressOverrides,
): Promise<SendOutcome> {
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return { ok: false, statusCode: null, excerpt: null, error: 'invalid URL' }
  }
  const signature = new Webhook(secret).sign(messageId, now, body)
  const headers = {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
    'content-length': String(Buffer.byteLength(body)),
  }
  const failed = (error: unknown): SendOutcome => {
    const message = error instanceof Error ? error.message || String(error) : String(error)
    return { ok: false, statusCode: null, excerpt: null, error: message.slice(0, 300) }
  }
  const deadline = Date.now() + WEBHOOK_TIMEOUT_MS
  let request: ClientRequest
  try {
    request = await guardedRequest(url, { method: 'POST', headers }, { allowPrivate: config().WEBHOOKS_ALLOW_PRIVATE, ...overrides }, WEBHOOK_TIMEOUT_MS)
  } catch (error) {
    // Refused by the guard (not a public address) or the name has no address: nothing was sent.
    return failed(error)
  }
  return new Promise<SendOutcome>((resolveOutcome) => {
    let settled = false
    const finish = (outcome: SendOutcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolveOutcome(outcome)
    }
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      let kept = 0
      response.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_EXCERPT_BYTES) {
          chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept))
          kept += chunk.length
        }
        if (kept >= RESPONSE_EXCERPT_BYTES) response.destroy()
      })
      const done = () => {
        const status = response.statusCode ?? 0
        finish({
          // A redirect is not followed, and so it is not a delivery.
          ok: status >= 200 && status < 300,
          statusCode: status,
          excerpt: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_BYTES) || null,
          error: status >= 300 && status < 400 ? 'redirect not followed' : null,
        })
      }
      response.on('end', done)
      response.on('close', done)
      response.on('error', done)
    })
    const timer = setTimeout(() => {
      request.destroy(new Error(`timed out after ${WEBHOOK_TIMEOUT_MS / 1000} s`))
    }, Math.max(0, deadline - Date.now()))
    request.on('error', (error) => finish(failed(error)))
    request.end(body)
  })
}

export interface WorkerOptions {
  /** Seconds between attempts (tests shorten them). */
  retryDelaysSeconds?: readonly number[]
  pollingIntervalSeconds?: number
}

/** Makes the attempt a job names, records it, and queues the next one when it failed. */
export async function attemptDelivery(job: DeliveryJob, delays: readonly number[] = RETRY_DELAYS_SECONDS): Promise<void> {
  const db = getDb()
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.id', 'd.payload', 'd.attempts', 'd.status', 'd.created_at', 'e.id as endpoint_id', 'e.url', 'e.secret_iv', 'e.secret_tag', 'e.secret_ciphertext'])
    .where('d.id', '=', job.deliveryId)
    .executeTakeFirst()
  // Deleted with its endpoint, or this attempt was made already (a job that ran twice).
  if (!row || row.attempts >= job.attempt) return
  const secret = openSecret({ id: row.endpoint_id, secret_iv: row.secret_iv, secret_tag: row.secret_tag, secret_ciphertext: row.secret_ciphertext })
  const body = JSON.stringify(row.payload)
  const outcome = await sendSigned(row.url, secret, `msg_${row.id}`, body)
  const delay = job.manual ? undefined : delays[job.attempt - 1]
  const retry = !outcome.ok && delay !== undefined
  const nextAt = retry ? new Date(Date.now() + delay * 1000) : null
  const boss = await getBoss()
  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.ok ? 'succeeded' : retry ? 'pending' : 'failed',
        attempts: job.attempt,
        last_status_code: outcome.statusCode,
        last_error: outcome.error,
        response_excerpt: outcome.excerpt,
        next_attempt_at: nextAt,
        updated_at: new Date(),
      })
      .where('id', '=', row.id)
      .where('attempts', '<', job.attempt)
      .returning('id')
      .executeTakeFirst()
    if (updated && retry) {
      await boss.send(WEBHOOK_QUEUE, { deliveryId: row.id, attempt: job.attempt + 1 } satisfies DeliveryJob, { db: fromKysely(trx), startAfter: nextAt! })
    }
  })
  countWebhookDelivery(outcome.ok ? 'succeeded' : retry ? 'retrying' : 'failed')
  logger.info({ delivery: row.id, attempt: job.attempt, status: outcome.statusCode, ok: outcome.ok, error: outcome.error }, 'webhook attempt')
}

const WORKER = 'webhook-worker'

/** Starts this process's worker for webhook deliveries, once; later calls return the same start. */
export function startWebhookWorker(options: WorkerOptions = {}): Promise<string> {
  const started = existingSingleton<Promise<string>>(WORKER)
  if (started) return started
  const starting = (async () => {
    await prepareWebhooks()
    const boss = await getBoss()
    return boss.work<DeliveryJob>(
      WEBHOOK_QUEUE,
      { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, localConcurrency: 2 },
      async (jobs: Job<DeliveryJob>[]) => {
        for (const job of jobs) await attemptDelivery(job.data, options.retryDelaysSeconds)
      },
    )
  })()
  replaceSingleton(WORKER, starting)
  starting.catch(() => replaceSingleton(WORKER, undefined))
  return starting
}
