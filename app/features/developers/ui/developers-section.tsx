// The dashboard's Developers section: API keys (create, shown once, list with use, revoke after a
// confirmation) and webhook endpoints (register, secret shown once, deliveries, redeliver,
// delete). Plain forms posted to /dashboard/developers, so all of it works without JavaScript;
// with JavaScript a Copy button appears beside a new secret.
import { Form, Link } from '@remix-run/react'
import { useState } from 'react'
import { relativeTime } from '~/features/auth/relative-time'
import { formatCredits } from '~/features/credits/display'
import { WEBHOOK_EVENTS } from '~/features/webhooks/events'
import { buttonClass, inputClass } from '~/ui/button'
import { FormMessage } from '~/ui/field'
import { useHydrated } from '~/ui/use-hydrated'
import { API_KEY_NAME_MAX } from '~/features/api-keys/limits'
import type { DevelopersData, DevelopersFlash } from '~/features/developers/developers.server'

const ACTION = '/dashboard/developers'

function CopyableSecret({ label, value, testId }: { label: string; value: string; testId: string }) {
  const hydrated = useHydrated()
  const [copied, setCopied] = useState(false)
  const id = `${testId}-value`
  return (
    <div className="mt-3">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <div className="mt-1.5 flex flex-col gap-2 sm:flex-row">
        <input id={id} readOnly value={value} data-testid={testId} className={`${inputClass} font-mono`} onFocus={(e) => e.currentTarget.select()} />
        {hydrated ? (
          <button
            type="button"
            className={buttonClass('secondary', 'shrink-0')}
            onClick={() => {
              void navigator.clipboard?.writeText(value).then(() => setCopied(true))
            }}
          >
            {copied ? 'Copied' : 'Copy'}
          </button>
        ) : null}
      </div>
    </div>
  )
}

function Revealed({ flash }: { flash: DevelopersFlash | null }) {
  // Kept in state: the balance polling reloads the data every few seconds, and the secret is in
  // the first load only.
  const [shown] = useState(flash)
  if (!shown || (shown.kind !== 'key' && shown.kind !== 'secret')) return null
  return (
    <div className="mt-4 rounded-xl border border-emerald-300 bg-emerald-50 p-4" role="status" data-testid="revealed-secret">
      <p className="text-sm font-medium text-emerald-900">{shown.message}</p>
      {shown.kind === 'key' ? (
        <CopyableSecret label={`API key “${shown.name}” (${shown.environment})`} value={shown.key} testId="new-api-key" />
      ) : (
        <CopyableSecret label={`Signing secret for ${shown.url}`} value={shown.secret} testId="new-webhook-secret" />
      )}
    </div>
  )
}

function formError(flash: DevelopersFlash | null, form: 'key' | 'webhook' | 'list') {
  return flash?.kind === 'error' && flash.form === form ? (
    <div className="mt-3">
      <FormMessage tone="error">{flash.message}</FormMessage>
    </div>
  ) : null
}

function date(iso: string) {
  return iso.slice(0, 10)
}

export function DevelopersSection({ data, now }: { data: DevelopersData; now: string }) {
  const { flash, keys, webhooks, confirmRevoke } = data
  return (
    <section aria-labelledby="developers-heading" id="developers" className="mt-10 scroll-mt-24">
      <h2 id="developers-heading" className="text-lg font-semibold text-slate-900">
        Developers
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        API keys for your scripts and webhooks for finished jobs. See the <Link to="/api" className="font-medium text-indigo-700 underline">API documentation</Link>.
      </p>
      {flash?.kind === 'notice' ? (
        <div className="mt-3">
          <FormMessage tone="success">{flash.message}</FormMessage>
        </div>
      ) : null}
      <Revealed flash={flash} />
      {formError(flash, 'list')}

      <div className="mt-6 grid gap-6 lg:grid-cols-2">
        <div className="min-w-0 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <h3 className="text-base font-semibold text-slate-900">API keys</h3>
          <Form method="post" action={ACTION} reloadDocument className="mt-3 grid gap-3 sm:grid-cols-[1fr_auto_auto] sm:items-end">
            <input type="hidden" name="intent" value="create-key" />
            <div>
              <label htmlFor="key-name" className="block text-sm font-medium text-slate-800">
                Key name
              </label>
              <input id="key-name" name="name" required maxLength={API_KEY_NAME_MAX} placeholder="e.g. Shop sync" className={`${inputClass} mt-1.5`} />
            </div>
            <div>
              <label htmlFor="key-environment" className="block text-sm font-medium text-slate-800">
                Environment
              </label>
              <select id="key-environment" name="environment" defaultValue="test" className={`${inputClass} mt-1.5`}>
                <option value="test">Test (no credits spent)</option>
                <option value="live">Live</option>
              </select>
            </div>
            <button type="submit" className={buttonClass('primary')}>
              Create key
            </button>
          </Form>
          {formError(flash, 'key')}
          {keys.length === 0 ? (
            <p className="mt-4 text-sm text-slate-600">No API keys yet.</p>
          ) : (
            <ul className="mt-4 divide-y divide-slate-100" data-testid="api-keys">
              {keys.map((key) => (
                <li key={key.id} className="py-3" data-testid="api-key-row">
                  <div className="flex flex-wrap items-baseline justify-between gap-2">
                    <p className="min-w-0 font-medium text-slate-900 [overflow-wrap:anywhere]">{key.name}</p>
                    <span className={`rounded-full px-2 py-0.5 text-xs font-semibold ${key.environment === 'live' ? 'bg-indigo-100 text-indigo-800' : 'bg-amber-100 text-amber-900'}`}>
                      {key.environment}
                    </span>
                  </div>
                  <p className="mt-1 font-mono text-sm text-slate-700">{key.prefix}…</p>
                  <p className="mt-1 text-sm text-slate-600">
                    Created {date(key.created_at)} · Last used {key.last_used_at ? relativeTime(key.last_used_at, now) : 'never'} · Last 30 days:{' '}
                    {key.runs_30d.toLocaleString('en-US')} {key.runs_30d === 1 ? 'run' : 'runs'}, {formatCredits(key.credits_30d)}
                  </p>
                  {confirmRevoke === key.id ? (
                    <Form method="post" action={ACTION} reloadDocument className="mt-2 rounded-xl bg-red-50 p-3">
                      <input type="hidden" name="intent" value="revoke-key" />
                      <input type="hidden" name="id" value={key.id} />
                      <p className="text-sm text-red-900">Revoke “{key.name}”? Scripts using it stop working at once. This cannot be undone.</p>
                      <div className="mt-2 flex flex-wrap gap-2">
                        <button type="submit" className={buttonClass('primary', 'bg-red-700 hover:bg-red-800')}>
                          Yes, revoke
                        </button>
                        <Link to="/dashboard#developers" reloadDocument className={buttonClass('secondary')}>
                          Cancel
                        </Link>
                      </div>
                    </Form>
                  ) : (
                    <Link
                      to={`/dashboard?revoke=${key.id}#developers`}
                      reloadDocument
                      className="mt-2 inline-block text-sm font-medium text-red-700 underline"
                      aria-label={`Revoke ${key.name}`}
                    >
                      Revoke
                    </Link>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>

        <div className="min-w-0 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <h3 className="text-base font-semibold text-slate-900">Webhooks</h3>
          <Form method="post" action={ACTION} reloadDocument className="mt-3 space-y-3">
            <input type="hidden" name="intent" value="create-webhook" />
            <div>
              <label htmlFor="webhook-url" className="block text-sm font-medium text-slate-800">
                Endpoint URL
              </label>
              <input id="webhook-url" name="url" type="url" required placeholder="https://example.com/facet-webhook" className={`${inputClass} mt-1.5`} />
            </div>
            <fieldset>
              <legend className="text-sm font-medium text-slate-800">Events</legend>
              <div className="mt-1.5 flex flex-wrap gap-4">
                {WEBHOOK_EVENTS.map((event) => (
                  <label key={event} className="inline-flex items-center gap-2 text-sm text-slate-700">
                    <input type="checkbox" name="events" value={event} defaultChecked className="h-4 w-4" />
                    <code>{event}</code>
                  </label>
                ))}
              </div>
            </fieldset>
            <button type="submit" className={buttonClass('primary')}>
              Add endpoint
            </button>
          </Form>
          {formError(flash, 'webhook')}
          {webhooks.length === 0 ? (
            <p className="mt-4 text-sm text-slate-600">No webhook endpoints yet.</p>
          ) : (
            <ul className="mt-4 divide-y divide-slate-100" data-testid="webhooks">
              {webhooks.map((endpoint) => (
                <li key={endpoint.id} className="py-3">
                  <p className="font-mono text-sm text-slate-900 [overflow-wrap:anywhere]">{endpoint.url}</p>
                  <p className="mt-1 text-sm text-slate-600">{endpoint.events.join(', ')}</p>
                  {endpoint.deliveries.length > 0 ? (
                    <details className="mt-2">
                      <summary className="cursor-pointer text-sm font-medium text-slate-800">Recent deliveries ({endpoint.deliveries.length})</summary>
                      <ul className="mt-2 space-y-2">
                        {endpoint.deliveries.map((d) => (
                          <li key={d.id} className="rounded-lg bg-slate-50 p-2 text-sm text-slate-700">
                            <span className="font-medium">{d.event_type}</span> · {d.status} · {d.attempts} {d.attempts === 1 ? 'attempt' : 'attempts'}
                            {d.last_status_code ? ` · HTTP ${d.last_status_code}` : ''}
                            {d.last_error ? ` · ${d.last_error}` : ''}
                            {d.next_attempt_at ? ` · next ${relativeTime(d.next_attempt_at, now)}` : ''}
                            <Form method="post" action={ACTION} reloadDocument className="mt-1">
                              <input type="hidden" name="intent" value="redeliver" />
                              <input type="hidden" name="id" value={d.id} />
                              <button type="submit" className="text-sm font-medium text-indigo-700 underline">
                                Redeliver
                              </button>
                            </Form>
                          </li>
                        ))}
                      </ul>
                    </details>
                  ) : (
                    <p className="mt-1 text-sm text-slate-500">No deliveries yet.</p>
                  )}
                  <Form method="post" action={ACTION} reloadDocument className="mt-2">
                    <input type="hidden" name="intent" value="delete-webhook" />
                    <input type="hidden" name="id" value={endpoint.id} />
                    <button type="submit" className="text-sm font-medium text-red-700 underline" aria-label={`Delete endpoint ${endpoint.url}`}>
                      Delete endpoint
                    </button>
                  </Form>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </section>
  )
}
