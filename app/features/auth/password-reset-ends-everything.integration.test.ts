// A password reset shuts out whoever knew the old password (decision 162): every session ends, the
// resetting browser's own included, and every API key the user made (personal and team) is revoked,
// each with an audit entry; the owner is mailed what ended.
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { getAuthentication } from '~/features/account/authentication.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { requestPasswordReset } from '~/features/auth/accounts.server'
import { createSession } from '~/features/auth/session.server'
import { createVerifiedUser, linkMailedTo, uniqueAddress } from '~/features/auth/testing.server'
import { waitForPendingMail } from '~/features/mail/mailer.server'
import { readOutbox } from '~/features/mail/outbox.server'
import { createTeam } from '~/features/teams/teams.server'
import { action as resetConfirm } from '~/routes/api.auth.password-reset.confirm'
import { action as resetPage } from '~/routes/reset-password'
import { BASE, formRequest, jsonRequest, readResult, routeArgs } from '../../../tests/support/requests'

async function whoIs(authorization: string) {
  return (await getAuthentication(new Request(`${BASE}/api/auth/profile/`, { headers: { authorization } }))).kind
}

async function keyOf(userId: string, name: string, teamId: string | null = null) {
  const made = await createApiKey(userId, { name, environment: 'live', teamId })
  if (!made.ok) throw new Error('no key')
  return made.key.key
}

describe('a password reset', () => {
  it('ends every session, revokes every key the user made (audited), and mails what ended', async () => {
    const { user, token: firstSession } = await createVerifiedUser({ first_name: 'Rhea' })
    const second = await createSession(user.id)
    const team = await createTeam(user.id, 'Reset team')
    const personal = await keyOf(user.id, 'laptop script')
    const teamKey = await keyOf(user.id, 'team pipeline', team.id)
    // Another member's key is not theirs to lose.
    const other = await createVerifiedUser()
    const othersKey = await keyOf(other.user.id, 'someone else')
    for (const credential of [`Token ${firstSession}`, `Token ${second.token}`]) expect(await whoIs(credential)).toBe('user')
    for (const key of [personal, teamKey]) expect(await whoIs(`Bearer ${key}`)).toBe('key')

    await requestPasswordReset(user.email)
    const token = (await linkMailedTo(user.email)).searchParams.get('token')!
    // Posted from a browser signed in as the user: its own session ends too.
    const answer = await readResult(
      await resetConfirm(
        routeArgs(jsonRequest('/api/auth/password-reset/confirm/', { token, password: 'a-fresh-password' }, { headers: { authorization: `Token ${firstSession}`, 'x-facet-client-ip': uniqueAddress() } })),
      ),
    )
    expect(answer.status).toBe(200)

    for (const credential of [`Token ${firstSession}`, `Token ${second.token}`]) expect(await whoIs(credential)).toBe('invalid')
    for (const key of [personal, teamKey]) expect(await whoIs(`Bearer ${key}`)).toBe('invalid')
    expect(await whoIs(`Bearer ${othersKey}`)).toBe('key')

    const audit = await getDb().selectFrom('audit_log').select(['action', 'details']).where('actor', '=', user.id).where('action', '=', 'api_key.revoke').execute()
    expect(audit.map((a) => (typeof a.details === 'string' ? JSON.parse(a.details) : a.details)).map((d) => [d.name, d.reason]).sort()).toEqual([
      ['laptop script', 'password_reset'],
      ['team pipeline', 'password_reset'],
    ])

    await waitForPendingMail()
    const mail = (await readOutbox(user.email)).find((m) => m.subject === 'Your Facet Studio password was changed')
    expect(mail?.text).toContain('signed out (2 sessions)')
    expect(mail?.text).toContain('laptop script')
    expect(mail?.text).toContain('team pipeline')
    expect(mail?.link).toBe('http://localhost:3000/dashboard#developers')
  })

  it("from the page: the resetting browser's session ends and its cookie is cleared", async () => {
    const { user, token: session } = await createVerifiedUser()
    await requestPasswordReset(user.email)
    const token = (await linkMailedTo(user.email)).searchParams.get('token')!
    const fields = { token, password: 'page-password-1', confirm_password: 'page-password-1' }
    const answer = await readResult(await resetPage(routeArgs(formRequest('/reset-password', fields, { headers: { authorization: `Token ${session}`, 'x-facet-client-ip': uniqueAddress() } }))))
    expect(answer.status).toBe(302)
    expect(answer.headers.get('location')).toBe('/login?reset=done')
    expect(answer.headers.get('set-cookie')).toMatch(/fs_session=;.*Max-Age=0/i)
    expect(await whoIs(`Token ${session}`)).toBe('invalid')
  })
})
