// The dashboard's Developers section: API keys and webhook endpoints, managed with plain forms
// (they work without JavaScript). Each form posts to /dashboard/developers, which answers with a
// redirect back to the dashboard (Post/Redirect/Get). A new key or signing secret travels in a
// short-lived, signed, httpOnly flash cookie scoped to /dashboard and read once: never in a URL,
// so never in a log or the history.
import { redirect } from '@remix-run/node'
import { requireUser } from '~/features/account/guards.server'
import { DEVELOPERS_ANCHOR } from '~/features/auth/redirect'
import type { SessionUser } from '~/features/auth/session.server'
import { createFlash } from '~/utils/flash.server'
import { createWebhookSchema } from '~/features/webhooks/schemas'
import {
  createWebhookFor,
  deleteWebhookFor,
  DELIVERY_NOT_FOUND,
  listWebhooksFor,
  personalWebhookOwner,
  redeliverFor,
  WEBHOOK_NOT_FOUND,
} from '~/features/webhooks/service.server'
import { KEY_CREATED, KEY_REVOKED } from '~/features/api-keys/messages'
import { createApiKeySchema } from '~/features/api-keys/schemas'
import { createKeyFor, listKeysFor, revokeKeyFor } from '~/features/account/keys.server'

export const WEBHOOK_CREATED = 'Your webhook endpoint is registered. Its signing secret is shown below, once: copy it now.'
export const WEBHOOK_DELETED = 'The webhook endpoint was deleted.'
export const REDELIVERY_QUEUED = 'The delivery will be attempted again in a moment.'

export type DevelopersFlash =
  | { kind: 'key'; name: string; environment: 'live' | 'test'; key: string; message: string }
  | { kind: 'secret'; url: string; secret: string; message: string }
  | { kind: 'notice'; message: string }
  | { kind: 'error'; form: 'key' | 'webhook' | 'list'; message: string }

// Scoped to /dashboard: the section's forms reload the document, so the cookie never needs to
// reach a `/dashboard.data` request.
const developersFlash = createFlash<DevelopersFlash>('fs_dev_flash', { path: '/dashboard', maxAgeSeconds: 120 })

async function back(flash: DevelopersFlash): Promise<Response> {
  return redirect(DEVELOPERS_ANCHOR, { status: 303, headers: { 'Set-Cookie': await developersFlash.set(flash) } })
}

function field(form: FormData, name: string): string {
  const value = form.get(name)
  return typeof value === 'string' ? value : ''
}

/** Handles one form of the section and redirects back to it. */
export async function developersAction(request: Request): Promise<Response> {
  const { user } = await requireUser(request)
  const auth = { kind: 'user' as const }
  const form = await request.formData()
  switch (field(form, 'intent')) {
    case 'create-key': {
      const parsed = createApiKeySchema.safeParse({ name: field(form, 'name'), environment: field(form, 'environment') })
      if (!parsed.success) return back({ kind: 'error', form: 'key', message: parsed.error.issues[0].message })
      const made = await createKeyFor(auth, user, parsed.data)
      if (!made.ok) return back({ kind: 'error', form: 'key', message: made.message })
      return back({ kind: 'key', name: made.key.name, environment: made.key.environment, key: made.key.key, message: KEY_CREATED })
    }
    case 'revoke-key': {
      const revoked = await revokeKeyFor(auth, user, field(form, 'id'))
      return back(revoked.ok ? { kind: 'notice', message: KEY_REVOKED } : { kind: 'error', form: 'list', message: revoked.message })
    }
    case 'create-webhook': {
      const parsed = createWebhookSchema.safeParse({ url: field(form, 'url'), events: form.getAll('events') })
      if (!parsed.success) return back({ kind: 'error', form: 'webhook', message: parsed.error.issues[0].message })
      const made = await createWebhookFor(await personalWebhookOwner(user), parsed.data)
      if (!made.ok) return back({ kind: 'error', form: 'webhook', message: made.message })
      return back({ kind: 'secret', url: made.endpoint.url, secret: made.endpoint.secret, message: WEBHOOK_CREATED })
    }
    case 'delete-webhook': {
      const deleted = await deleteWebhookFor(await personalWebhookOwner(user), field(form, 'id'))
      return back(deleted ? { kind: 'notice', message: WEBHOOK_DELETED } : { kind: 'error', form: 'list', message: WEBHOOK_NOT_FOUND })
    }
    case 'redeliver': {
      const queued = await redeliverFor(await personalWebhookOwner(user), field(form, 'id'))
      return back(queued ? { kind: 'notice', message: REDELIVERY_QUEUED } : { kind: 'error', form: 'list', message: DELIVERY_NOT_FOUND })
    }
    default:
      return back({ kind: 'error', form: 'list', message: 'Unknown action.' })
  }
}

export interface DevelopersData {
  keys: Awaited<ReturnType<typeof listKeysFor>>
  webhooks: Awaited<ReturnType<typeof listWebhooksFor>>
  flash: DevelopersFlash | null
  /** The key whose revocation waits for confirmation (?revoke=<id>), if any. */
  confirmRevoke: string | null
}

/** The section's data, and the Set-Cookie that clears a flash once it has been read. */
export async function loadDevelopers(request: Request, user: SessionUser): Promise<{ data: DevelopersData; setCookie: string | null }> {
  const { value: flash, clear } = await developersFlash.take(request)
  const [keys, webhooks] = await Promise.all([listKeysFor(user), personalWebhookOwner(user).then(listWebhooksFor)])
  const revoke = new URL(request.url).searchParams.get('revoke')
  return {
    data: { keys, webhooks, flash, confirmRevoke: revoke && keys.some((k) => k.id === revoke) ? revoke : null },
    setCookie: clear,
  }
}
