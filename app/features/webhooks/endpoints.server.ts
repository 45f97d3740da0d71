// Webhook endpoints of an account and their deliveries: registration (the URL checked, the
// signing secret made and stored encrypted), listing with recent deliveries, removal, events
// emitted inside the caller's transaction, and redelivery by the owner.
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto'
import { fromKysely } from 'pg-boss'
import { sql, type Transaction } from 'kysely'
import { config } from '~/config.server'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import type { Database, WebhookDeliveryStatus } from '~/db/schema'
import { databaseSingleton, existingSingleton } from '~/utils/singleton.server'
import { isUuid } from '~/utils/uuid'
import { getBoss } from '~/features/queue/boss.server'
import { BlockedAddressError, checkedAddresses, type Resolver } from './address-guard.server'
import { MAX_WEBHOOK_ENDPOINTS, type WebhookEvent } from './events'

export const WEBHOOK_QUEUE = 'webhook-delivery'
/** Deliveries listed per endpoint. */
export const RECENT_DELIVERIES = 20

export interface DeliveryJob {
  deliveryId: string
  /** The attempt this job makes (1 = the first); a job for an attempt already made does nothing. */
  attempt: number
  /** A redelivery the owner asked for: one attempt, not a new schedule of retries. */
  manual?: boolean
}

// The secret has to be read back to sign, so it is encrypted rather than hashed, with the endpoint id as
// associated data (a ciphertext moved to another row does not decrypt).
function sealSecret(endpointId: string, secret: string) {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', config().resultsKey, iv)
  cipher.setAAD(Buffer.from(endpointId))
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return { secret_iv: iv, secret_tag: cipher.getAuthTag(), secret_ciphertext: ciphertext }
}

export function openSecret(row: { id: string; secret_iv: Buffer; secret_tag: Buffer; secret_ciphertext: Buffer }): string {
  const decipher = createDecipheriv('aes-256-gcm', config().resultsKey, row.secret_iv)
  decipher.setAAD(Buffer.from(row.id))
  decipher.setAuthTag(row.secret_tag)
  return Buffer.concat([decipher.update(row.secret_ciphertext), decipher.final()]).toString('utf8')
}

/** A Standard Webhooks secret: whsec_ and 24 random bytes in base64. */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`
}

/**
 * Why a URL cannot be a webhook target, or null when it can. Checked again at each delivery (the
 * name's addresses may change): this check only spares the owner an endpoint that can never work.
 */
export async function webhookUrlProblem(raw: string, resolve?: Resolver): Promise<string | null> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'The webhook URL is not a valid URL.'
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The webhook URL must start with https:// or http://.'
  if (url.username || url.password) return 'The webhook URL must not contain a user name or password.'
  if (config().WEBHOOKS_ALLOW_PRIVATE) return null
  try {
    await checkedAddresses(url, { allowPrivate: false, resolve })
  } catch (error) {
    if (error instanceof BlockedAddressError) {
      return 'The webhook URL points to a private, loopback or otherwise non-public address; webhooks only reach public addresses.'
    }
    return `The webhook host ${url.hostname} cannot be resolved.`
  }
  return null
}

export type CreateEndpointOutcome =
  | { ok: true; endpoint: { id: string; url: string; events: WebhookEvent[]; secret: string; created_at: Date } }
  | { ok: false; message: string; status: 400 | 409 }

/** A write that belongs with the endpoint's own, in its transaction (a team's audit entry, decision 162). */
export type EndpointHook = (endpoint: { id: string; url: string; events: WebhookEvent[] }, trx: Transaction<Database>) => Promise<void>

export async function createEndpoint(
  accountId: string,
  input: { url: string; events: WebhookEvent[] },
  db: DbOrTx = getDb(),
  onCreated?: EndpointHook,
): Promise<CreateEndpointOutcome> {
  const problem = await webhookUrlProblem(input.url)
  if (problem) return { ok: false, status: 400, message: problem }
  const count = await db
    .selectFrom('webhook_endpoints')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  if (count.n >= MAX_WEBHOOK_ENDPOINTS) {
    return { ok: false, status: 409, message: `An account has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints. Delete one first.` }
  }
  const id = randomUUID()
  const secret = newSecret()
  const row = await executeTx(db, async (trx) => {
    const inserted = await trx
      .insertInto('webhook_endpoints')
      .values({ id, account_id: accountId, url: input.url, events: input.events, ...sealSecret(id, secret) })
      .returning(['id', 'url', 'events', 'created_at'])
      .executeTakeFirstOrThrow()
    await onCreated?.({ id: inserted.id, url: inserted.url, events: inserted.events as WebhookEvent[] }, trx)
    return inserted
  })
  return { ok: true, endpoint: { ...row, events: row.events as WebhookEvent[], secret } }
}

export interface DeliveryView {
  id: string
  event_type: string
  status: WebhookDeliveryStatus
  attempts: number
  last_status_code: number | null
  last_error: string | null
  next_attempt_at: Date | null
  created_at: Date
  updated_at: Date
}

export interface EndpointView {
  id: string
  url: string
  events: WebhookEvent[]
  created_at: Date
  deliveries: DeliveryView[]
}

export async function listEndpoints(accountId: string, db: DbOrTx = getDb()): Promise<EndpointView[]> {
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'events', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .execute()
  if (endpoints.length === 0) return []
  const deliveries = await db
    .selectFrom('webhook_deliveries as d')
    .select(['d.id', 'd.endpoint_id', 'd.event_type', 'd.status', 'd.attempts', 'd.last_status_code', 'd.last_error', 'd.next_attempt_at', 'd.created_at', 'd.updated_at'])
    .where(
      'd.id',
      'in',
      db
        .selectFrom(
          db
            .selectFrom('webhook_deliveries')
            .select(['id', sql<number>`row_number() over (partition by endpoint_id order by created_at desc)`.as('rank')])
            .where('endpoint_id', 'in', endpoints.map((e) => e.id))
            .as('ranked'),
        )
        .select('ranked.id')
        .where('ranked.rank', '<=', RECENT_DELIVERIES),
    )
    .orderBy('d.created_at', 'desc')
    .execute()
  return endpoints.map((e) => ({
    ...e,
    events: e.events as WebhookEvent[],
    deliveries: deliveries.filter((d) => d.endpoint_id === e.id).map(({ endpoint_id: _endpoint, ...d }) => d),
  }))
}

/** Deletes one of the account's endpoints (its deliveries go with it). False when it is not theirs. */
export async function deleteEndpoint(accountId: string, endpointId: string, db: DbOrTx = getDb(), onDeleted?: EndpointHook): Promise<boolean> {
  if (!isUuid(endpointId)) return false
  return executeTx(db, async (trx) => {
    const row = await trx
      .deleteFrom('webhook_endpoints')
      .where('id', '=', endpointId)
      .where('account_id', '=', accountId)
      .returning(['id', 'url', 'events'])
      .executeTakeFirst()
    if (row) await onDeleted?.({ id: row.id, url: row.url, events: row.events as WebhookEvent[] }, trx)
    return Boolean(row)
  })
}

/**
 * A delivery is read on another host, where the studio's own paths mean nothing: every address the
 * event carries (`url` and each `…_url`) becomes absolute, on PUBLIC_URL.
 */
export function withAbsoluteUrls(data: Record<string, unknown>, base = config().PUBLIC_URL): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) =>
      (key === 'url' || key.endsWith('_url')) && typeof value === 'string' && value.startsWith('/') ? [key, new URL(value, base).href] : [key, value],
    ),
  )
}

/**
 * Records an event for every endpoint of the account that listens to it, and queues one delivery
 * job each, all in the caller's transaction: when the work whose outcome the event reports rolls
 * back, no delivery ever existed.
 */
export async function emitEvent(
  event: {
    accountId: string
    type: WebhookEvent
    /** The event's data, or how to make it in the transaction: made only when an endpoint will hear it (most accounts have none). */
    data: Record<string, unknown> | ((trx: Transaction<Database>) => Promise<Record<string, unknown>>)
  },
  dbOrTx: DbOrTx = getDb(),
): Promise<string[]> {
  const boss = await readyBoss(dbOrTx)
  return executeTx(dbOrTx, async (trx) => {
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('account_id', '=', event.accountId)
      .where(sql<boolean>`${event.type} = any(events)`)
      .execute()
    if (endpoints.length === 0) return []
    const data = typeof event.data === 'function' ? await event.data(trx) : event.data
    const payload = { type: event.type, timestamp: new Date().toISOString(), data: withAbsoluteUrls(data) }
    const rows = await trx
      .insertInto('webhook_deliveries')
      .values(endpoints.map((e) => ({ endpoint_id: e.id, event_type: event.type, payload: JSON.stringify(payload), next_attempt_at: new Date() })))
      .returning('id')
      .execute()
    for (const row of rows) {
      await boss.send(WEBHOOK_QUEUE, { deliveryId: row.id, attempt: 1 } satisfies DeliveryJob, { db: fromKysely(trx) })
    }
    return rows.map((r) => r.id)
  })
}

export type RedeliverOutcome = { ok: true } | { ok: false; reason: 'not-found' }

/** The owner asks for one more attempt of a delivery, whatever its state. */
export async function redeliver(accountId: string, deliveryId: string, db: DbOrTx = getDb()): Promise<RedeliverOutcome> {
  if (!isUuid(deliveryId)) return { ok: false, reason: 'not-found' }
  const boss = await readyBoss(db)
  return executeTx(db, async (trx) => {
    const row = await trx
      .updateTable('webhook_deliveries as d')
      .set({ status: 'pending', next_attempt_at: new Date(), updated_at: new Date() })
      .from('webhook_endpoints as e')
      .whereRef('e.id', '=', 'd.endpoint_id')
      .where('e.account_id', '=', accountId)
      .where('d.id', '=', deliveryId)
      .returning(['d.id', 'd.attempts'])
      .executeTakeFirst()
    if (!row) return { ok: false, reason: 'not-found' } as const
    await boss.send(WEBHOOK_QUEUE, { deliveryId: row.id, attempt: row.attempts + 1, manual: true } satisfies DeliveryJob, { db: fromKysely(trx) })
    return { ok: true } as const
  })
}

const QUEUE_READY = 'webhook-queue'

/**
 * pg-boss started and the deliveries queue created, once per process. The worker's start does it;
 * a process that emits events inside its own transactions must have done it before (on PGlite,
 * pg-boss's own queries wait for an open transaction to end, so starting it inside one never ends).
 */
export function prepareWebhooks(): Promise<void> {
  return databaseSingleton(QUEUE_READY, async () => {
    const boss = await getBoss()
    if (!(await boss.getQueue(WEBHOOK_QUEUE))) await boss.createQueue(WEBHOOK_QUEUE)
  })
}

async function readyBoss(dbOrTx: DbOrTx) {
  if (dbOrTx.isTransaction && !existingSingleton(QUEUE_READY)) {
    throw new Error('Webhooks are not prepared: call prepareWebhooks() (or startWebhookWorker()) before emitting inside a transaction')
  }
  await prepareWebhooks()
  return getBoss()
}

