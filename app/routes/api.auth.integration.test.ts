// The /api/auth endpoints of spec §7, called through their route modules on a real database.
import { describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { getDb } from '~/db/db.server'
import { hashToken } from '~/features/auth/session.server'
import { createVerifiedUser, linkMailedTo, uniqueAddress, uniqueEmail } from '~/features/auth/testing.server'
import { waitForPendingMail } from '~/features/mail/mailer.server'
import { readOutbox } from '~/features/mail/outbox.server'
import { BASE, cookieFrom, jsonRequest, readResult, routeArgs } from '../../tests/support/requests'
import { action as login } from './api.auth.login'
import { action as logout } from './api.auth.logout'
import { action as resetConfirm } from './api.auth.password-reset.confirm'
import { action as resetRequest } from './api.auth.password-reset'
import { loader as profile } from './api.auth.profile'
import { action as register } from './api.auth.register'
import { action as resend } from './api.auth.resend-verification'
import { action as verify } from './api.auth.verify-email'

type Handler = (args: ReturnType<typeof routeArgs>) => Promise<unknown> | unknown

/** Each test speaks from its own address so rate-limit budgets stay apart. */
function client(address = uniqueAddress()) {
  const headers = (extra: Record<string, string> = {}) => ({ 'x-facet-client-ip': address, ...extra })
  return {
    post: async (handler: Handler, path: string, body: unknown, extra: Record<string, string> = {}) =>
      readResult(await handler(routeArgs(jsonRequest(path, body, { headers: headers(extra) })))),
    get: async (handler: Handler, path: string, extra: Record<string, string> = {}) =>
      readResult(await handler(routeArgs(new Request(BASE + path, { headers: headers(extra) })))),
  }
}

async function registerAndVerify(c = client(), extra: { first_name?: string; last_name?: string } = {}) {
  const email = uniqueEmail()
  const password = 'a-good-password'
  const reg = await c.post(register, '/api/auth/register/', { email, password, ...extra })
  expect(reg.status).toBe(201)
  const link = await linkMailedTo(email)
  const verified = await c.post(verify, '/api/auth/verify-email/', { token: link.searchParams.get('token') })
  expect(verified.status).toBe(200)
  return { email, password, token: verified.body.token as string, user: verified.body.user }
}

describe('POST /api/auth/register/', () => {
  it('creates an unverified account and mails a verification link', async () => {
    const c = client()
    const email = uniqueEmail('Reg')
    const res = await c.post(register, '/api/auth/register/', {
      email: `  ${email.toUpperCase()} `,
      password: 'long-enough',
      first_name: '  Ada ',
      last_name: '   ',
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ detail: expect.stringContaining(email.toLowerCase()), email: email.toLowerCase(), expires_in_hours: 24 })
    // No session: only the sign-up browser's key, which its link recognises (decision 162).
    expect(res.headers.getSetCookie().map((c) => c.split('=')[0])).toEqual(['fs_signup'])

    const row = await getDb().selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirstOrThrow()
    expect(row.first_name).toBe('Ada')
    expect(row.last_name).toBeNull()
    expect(row.email_verified_at).toBeNull()
    expect(row.password_hash).toMatch(/^scrypt\$/)
    expect(row.password_hash).not.toContain('long-enough')

    await waitForPendingMail()
    const [mail] = await readOutbox(email.toLowerCase())
    expect(mail.subject).toBe('Confirm your email for Facet Studio')
    const link = new URL(mail.link!)
    expect(link.origin + link.pathname).toBe('http://localhost:3000/verify-email')
    expect(mail.text).toContain(mail.link)
    expect(mail.text).toContain('expires in 24 hours')
    expect(mail.html).toContain('Confirm my email')
    expect(mail.html).toContain(link.searchParams.get('token'))
    // Only a hash of the token is stored.
    const stored = await getDb().selectFrom('user_tokens').select('token_hash').where('user_id', '=', row.id).executeTakeFirstOrThrow()
    expect(stored.token_hash).toBe(hashToken(link.searchParams.get('token')!))
  })

  it('answers an existing, verified email exactly the same and mails the owner instead', async () => {
    const c = client()
    const { user, password } = await createVerifiedUser()
    const res = await c.post(register, '/api/auth/register/', { email: user.email, password: 'a-different-password' })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ detail: expect.stringContaining(user.email), email: user.email, expires_in_hours: 24 })
    await waitForPendingMail()
    const mails = await readOutbox(user.email)
    expect(mails.map((m) => m.subject)).toEqual(['You already have a Facet Studio account'])
    // The password was not changed by the attempt.
    const ok = await c.post(login, '/api/auth/login/', { email: user.email, password })
    expect(ok.status).toBe(200)
  })

  it('mails a fresh link when the existing account is still unverified', async () => {
    const c = client()
    const email = uniqueEmail()
    await c.post(register, '/api/auth/register/', { email, password: 'first-password' })
    const again = await c.post(register, '/api/auth/register/', { email, password: 'second-password' })
    expect(again.status).toBe(201)
    await waitForPendingMail()
    const mails = await readOutbox(email)
    expect(mails).toHaveLength(2)
    expect(mails.every((m) => m.subject === 'Confirm your email for Facet Studio')).toBe(true)
    expect(mails[0].link).not.toBe(mails[1].link)
  })

  it('refuses bad input with 400 and a message', async () => {
    const c = client()
    const short = await c.post(register, '/api/auth/register/', { email: uniqueEmail(), password: 'short' })
    expect(short.status).toBe(400)
    expect(short.body.error).toBe('Password must be at least 8 characters.')
    expect(short.body.errors.password).toBeDefined()

    const badEmail = await c.post(register, '/api/auth/register/', { email: 'not-an-email', password: 'long-enough' })
    expect(badEmail.status).toBe(400)
    expect(badEmail.body.error).toBe('Enter a valid email address.')

    const missing = await c.post(register, '/api/auth/register/', {})
    expect(missing.status).toBe(400)
    expect(missing.body.error).toBe('Email is required.')

    const garbage = await readResult(
      await register(
        routeArgs(new Request(BASE + '/api/auth/register/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' })),
      ),
    )
    expect(garbage.status).toBe(400)
    expect(garbage.body.error).toMatch(/JSON/)
  })

  it('is rate-limited per email with 429 and Retry-After', async () => {
    const c = client()
    const email = uniqueEmail()
    const statuses: number[] = []
    let last
    for (let i = 0; i < 6; i++) {
      last = await c.post(register, '/api/auth/register/', { email, password: 'long-enough' })
      statuses.push(last.status)
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429])
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(last!.body.error).toBe('Too many sign-up attempts. Please wait a while and try again.')
  })

  it('caps sign-ups per address at SIGN_UPS_PER_ADDRESS an hour, whatever the emails', async () => {
    process.env.SIGN_UPS_PER_ADDRESS = '3'
    resetConfigForTests()
    try {
      const c = client()
      const statuses: number[] = []
      for (let i = 0; i < 4; i++) statuses.push((await c.post(register, '/api/auth/register/', { email: uniqueEmail(), password: 'long-enough' })).status)
      expect(statuses).toEqual([201, 201, 201, 429])
      // Another address keeps its own budget.
      expect((await client().post(register, '/api/auth/register/', { email: uniqueEmail(), password: 'long-enough' })).status).toBe(201)
    } finally {
      delete process.env.SIGN_UPS_PER_ADDRESS
      resetConfigForTests()
    }
  })
})

describe('POST /api/auth/verify-email/', () => {
  it('verifies, signs in, and grants the 50-credit welcome bonus', async () => {
    const c = client()
    const email = uniqueEmail()
    const reg = await c.post(register, '/api/auth/register/', { email, password: 'long-enough', first_name: 'Grace', last_name: 'Hopper' })
    const token = (await linkMailedTo(email)).searchParams.get('token')
    // From the browser that signed up (its fs_signup cookie): the session cookie is set too.
    const res = await c.post(verify, '/api/auth/verify-email/', { token }, { cookie: cookieFrom(reg.headers) })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      token: expect.any(String),
      user: { id: expect.any(String), email, first_name: 'Grace', last_name: 'Hopper' },
      credits: { balance: 50 },
    })
    expect(res.headers.get('set-cookie')).toMatch(/^fs_session=.+HttpOnly.*SameSite=Lax/i)

    // The token it answers is a live session.
    const me = await c.get(profile, '/api/auth/profile/', { authorization: `Token ${res.body.token}` })
    expect(me.body).toEqual(res.body.user)
    // So is the cookie.
    const viaCookie = await c.get(profile, '/api/auth/profile/', { cookie: cookieFrom(res.headers) })
    expect(viaCookie.status).toBe(200)

    const bonus = await getDb()
      .selectFrom('credit_transactions')
      .innerJoin('credit_accounts', 'credit_accounts.id', 'credit_transactions.account_id')
      .select(['kind', 'delta', 'description'])
      .where('credit_accounts.user_id', '=', res.body.user.id)
      .execute()
    expect(bonus).toEqual([{ kind: 'bonus', delta: 50, description: 'Welcome bonus' }])
  })

  it('refuses a used, an unknown and an expired token with 400', async () => {
    const c = client()
    const email = uniqueEmail()
    await c.post(register, '/api/auth/register/', { email, password: 'long-enough' })
    const token = (await linkMailedTo(email)).searchParams.get('token')!
    expect((await c.post(verify, '/api/auth/verify-email/', { token })).status).toBe(200)

    const used = await c.post(verify, '/api/auth/verify-email/', { token })
    expect(used.status).toBe(400)
    expect(used.body.error).toBe('This verification link has already been used. Sign in to continue.')

    const unknown = await c.post(verify, '/api/auth/verify-email/', { token: 'no-such-token' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toMatch(/not valid/)

    const missing = await c.post(verify, '/api/auth/verify-email/', {})
    expect(missing.status).toBe(400)
    expect(missing.body.error).toBe('Verification token missing. Please use the link from your email.')

    const other = uniqueEmail()
    await c.post(register, '/api/auth/register/', { email: other, password: 'long-enough' })
    const stale = (await linkMailedTo(other)).searchParams.get('token')!
    await getDb()
      .updateTable('user_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('token_hash', '=', hashToken(stale))
      .execute()
    const expired = await c.post(verify, '/api/auth/verify-email/', { token: stale })
    expect(expired.status).toBe(400)
    expect(expired.body.error).toMatch(/expired/)
    const row = await getDb().selectFrom('users').select('email_verified_at').where('email', '=', other).executeTakeFirstOrThrow()
    expect(row.email_verified_at).toBeNull()
  })

  it('lets only one of two simultaneous clicks through, and grants the bonus once', async () => {
    const c = client()
    const email = uniqueEmail()
    await c.post(register, '/api/auth/register/', { email, password: 'long-enough' })
    const token = (await linkMailedTo(email)).searchParams.get('token')
    const both = await Promise.all([
      c.post(verify, '/api/auth/verify-email/', { token }),
      c.post(verify, '/api/auth/verify-email/', { token }),
    ])
    expect(both.map((r) => r.status).sort()).toEqual([200, 400])

    // A later link (e.g. from re-registering) signs in again but never grants a second bonus.
    await c.post(register, '/api/auth/register/', { email, password: 'long-enough' })
    await waitForPendingMail()
    const mails = await readOutbox(email)
    expect(mails.at(-1)!.subject).toBe('You already have a Facet Studio account')
    const { issueToken } = await import('~/features/auth/tokens.server')
    const user = await getDb().selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()
    const { token: second } = await issueToken(user.id, 'verify_email')
    const again = await c.post(verify, '/api/auth/verify-email/', { token: second })
    expect(again.status).toBe(200)
    expect(again.body.credits.balance).toBe(50)
  })
})

describe('POST /api/auth/login/', () => {
  it('signs in a verified user', async () => {
    const c = client()
    const { email, password, user } = await registerAndVerify(c, { first_name: 'Lin' })
    const res = await c.post(login, '/api/auth/login/', { email: email.toUpperCase(), password })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ token: expect.any(String), user, credits: { balance: 50 } })
    const me = await c.get(profile, '/api/auth/profile/', { authorization: `Token ${res.body.token}` })
    expect(me.status).toBe(200)
    expect(me.body).toEqual({ id: user.id, email, first_name: 'Lin', last_name: null })
  })

  it('answers a wrong password and an unknown email with the same neutral 400', async () => {
    const c = client()
    const { user } = await createVerifiedUser()
    const wrong = await c.post(login, '/api/auth/login/', { email: user.email, password: 'not-the-password' })
    const unknown = await c.post(login, '/api/auth/login/', { email: uniqueEmail(), password: 'not-the-password' })
    expect(wrong.status).toBe(400)
    expect(unknown.status).toBe(400)
    expect(wrong.body.error).toBe('Invalid email or password.')
    expect(unknown.body).toEqual(wrong.body)
  })

  it('tells an unverified account how to get a new verification mail', async () => {
    const c = client()
    const email = uniqueEmail()
    await c.post(register, '/api/auth/register/', { email, password: 'long-enough' })
    const res = await c.post(login, '/api/auth/login/', { email, password: 'long-enough' })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('email_not_verified')
    expect(res.body.error).toMatch(/verify your email/i)
    expect(res.body.resend).toEqual({ method: 'POST', path: '/api/auth/resend-verification/', body: { email } })

    const again = await c.post(resend, '/api/auth/resend-verification/', { email })
    expect(again.status).toBe(200)
    expect(again.body.detail).toBe('If that account still needs verifying, a new verification link is on its way.')
    await waitForPendingMail()
    expect(await readOutbox(email)).toHaveLength(2)

    // The same neutral answer, and no mail, for an address without an account.
    const nobody = uniqueEmail()
    expect((await c.post(resend, '/api/auth/resend-verification/', { email: nobody })).body).toEqual(again.body)
    await waitForPendingMail()
    expect(await readOutbox(nobody)).toHaveLength(0)
  })

  it('requires both fields', async () => {
    const res = await client().post(login, '/api/auth/login/', { email: uniqueEmail() })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('Password is required.')
  })

  it('answers 429 with Retry-After after 10 failed attempts, per address and email', async () => {
    const address = uniqueAddress()
    const c = client(address)
    const { user, password } = await createVerifiedUser()
    const statuses: number[] = []
    let last
    for (let i = 0; i < 11; i++) {
      last = await c.post(login, '/api/auth/login/', { email: user.email, password: 'wrong-password' })
      statuses.push(last.status)
    }
    expect(statuses).toEqual([...Array(10).fill(400), 429])
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(last!.body.error).toBe('Too many sign-in attempts. Please wait a few minutes and try again.')
    // Even the right password waits now...
    expect((await c.post(login, '/api/auth/login/', { email: user.email, password })).status).toBe(429)
    // ...but another address is not locked out of this account, nor this address out of another.
    expect((await client().post(login, '/api/auth/login/', { email: user.email, password })).status).toBe(200)
    const other = await createVerifiedUser()
    expect((await c.post(login, '/api/auth/login/', { email: other.user.email, password: other.password })).status).toBe(200)
  })

  it('forgives earlier failures after a successful sign-in', async () => {
    const c = client()
    const { user, password } = await createVerifiedUser()
    for (let i = 0; i < 9; i++) await c.post(login, '/api/auth/login/', { email: user.email, password: 'wrong-password' })
    expect((await c.post(login, '/api/auth/login/', { email: user.email, password })).status).toBe(200)
    for (let i = 0; i < 9; i++) {
      expect((await c.post(login, '/api/auth/login/', { email: user.email, password: 'wrong-password' })).status).toBe(400)
    }
  })
})

describe('POST /api/auth/logout/ and GET /api/auth/profile/', () => {
  it('answers 401 without a session, and with a forged or malformed token', async () => {
    const c = client()
    const anonymous = await c.get(profile, '/api/auth/profile/')
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.error).toBe('Authentication credentials were not provided.')
    expect((await c.get(profile, '/api/auth/profile/', { authorization: 'Token forged' })).status).toBe(401)
    expect((await c.get(profile, '/api/auth/profile/', { authorization: 'Bearer x y' })).status).toBe(401)
  })

  it('revokes the token session and answers 204', async () => {
    const c = client()
    const { token } = await createVerifiedUser()
    const auth = { authorization: `Token ${token}` }
    expect((await c.get(profile, '/api/auth/profile/', auth)).status).toBe(200)
    const out = await c.post(logout, '/api/auth/logout/', {}, auth)
    expect(out.status).toBe(204)
    expect((await c.get(profile, '/api/auth/profile/', auth)).status).toBe(401)
    // Again: still 204, nothing to revoke.
    expect((await c.post(logout, '/api/auth/logout/', {}, auth)).status).toBe(204)
  })

  it('revokes a cookie session and clears the cookie', async () => {
    const c = client()
    const { email, password } = await registerAndVerify(c)
    const signIn = await c.post(login, '/api/auth/login/', { email, password })
    const { sessionCookieHeader } = await import('~/features/auth/session.server')
    const cookie = (await sessionCookieHeader(signIn.body.token)).split(';')[0]
    expect((await c.get(profile, '/api/auth/profile/', { cookie })).status).toBe(200)
    const out = await c.post(logout, '/api/auth/logout/', {}, { cookie })
    expect(out.status).toBe(204)
    expect(out.headers.get('set-cookie')).toMatch(/fs_session=;.*Max-Age=0/i)
    expect((await c.get(profile, '/api/auth/profile/', { cookie })).status).toBe(401)
    // The token from the same sign-in is the same session: it is gone too.
    expect((await c.get(profile, '/api/auth/profile/', { authorization: `Token ${signIn.body.token}` })).status).toBe(401)
  })
})

describe('password reset', () => {
  it('answers the same neutral message whether or not the account exists, and mails only a real one', async () => {
    const c = client()
    const { user } = await createVerifiedUser()
    const nobody = uniqueEmail()
    const a = await c.post(resetRequest, '/api/auth/password-reset/', { email: user.email })
    const b = await c.post(resetRequest, '/api/auth/password-reset/', { email: nobody })
    expect(a.status).toBe(200)
    expect(a.body).toEqual({ detail: "If an account exists, you'll receive reset instructions shortly." })
    expect(b).toEqual(a)
    await waitForPendingMail()
    const [mail] = await readOutbox(user.email)
    expect(mail.subject).toBe('Reset your Facet Studio password')
    expect(mail.link).toMatch(/^http:\/\/localhost:3000\/reset-password\?token=/)
    expect(mail.text).toContain('expires in 1 hour')
    expect(await readOutbox(nobody)).toHaveLength(0)
  })

  it('sets the new password once, signs out the other sessions, and refuses the token again', async () => {
    const c = client()
    const { user, password, token: oldSession } = await createVerifiedUser()
    await c.post(resetRequest, '/api/auth/password-reset/', { email: user.email })
    const resetToken = (await linkMailedTo(user.email)).searchParams.get('token')

    const short = await c.post(resetConfirm, '/api/auth/password-reset/confirm/', { token: resetToken, password: 'short' })
    expect(short.status).toBe(400)
    expect(short.body.error).toBe('Password must be at least 8 characters.')

    const done = await c.post(resetConfirm, '/api/auth/password-reset/confirm/', { token: resetToken, password: 'brand-new-secret' })
    expect(done.status).toBe(200)
    expect(done.body.detail).toBe('Your password has been reset. Sign in with your new password.')

    expect((await c.get(profile, '/api/auth/profile/', { authorization: `Token ${oldSession}` })).status).toBe(401)
    expect((await c.post(login, '/api/auth/login/', { email: user.email, password })).status).toBe(400)
    expect((await c.post(login, '/api/auth/login/', { email: user.email, password: 'brand-new-secret' })).status).toBe(200)

    const reused = await c.post(resetConfirm, '/api/auth/password-reset/confirm/', { token: resetToken, password: 'another-secret' })
    expect(reused.status).toBe(400)
    expect(reused.body.error).toMatch(/already been used/)
  })

  it('refuses an expired reset token (one hour) and an unknown one', async () => {
    const c = client()
    const { user, password } = await createVerifiedUser()
    await c.post(resetRequest, '/api/auth/password-reset/', { email: user.email })
    const resetToken = (await linkMailedTo(user.email)).searchParams.get('token')!
    const row = await getDb()
      .selectFrom('user_tokens')
      .select(['created_at', 'expires_at'])
      .where('token_hash', '=', hashToken(resetToken))
      .executeTakeFirstOrThrow()
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBeGreaterThan(59 * 60_000)
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBeLessThan(61 * 60_000)
    await getDb().updateTable('user_tokens').set({ expires_at: new Date(Date.now() - 1) }).where('token_hash', '=', hashToken(resetToken)).execute()

    const expired = await c.post(resetConfirm, '/api/auth/password-reset/confirm/', { token: resetToken, password: 'brand-new-secret' })
    expect(expired.status).toBe(400)
    expect(expired.body.error).toMatch(/expired/)
    const unknown = await c.post(resetConfirm, '/api/auth/password-reset/confirm/', { token: 'nope', password: 'brand-new-secret' })
    expect(unknown.status).toBe(400)
    expect((await c.post(login, '/api/auth/login/', { email: user.email, password })).status).toBe(200)
  })

  it('verifies a never-verified account, since the reset link proves the inbox too', async () => {
    const c = client()
    const email = uniqueEmail()
    await c.post(register, '/api/auth/register/', { email, password: 'first-password' })
    expect((await c.post(login, '/api/auth/login/', { email, password: 'first-password' })).body.code).toBe('email_not_verified')
    await c.post(resetRequest, '/api/auth/password-reset/', { email })
    await waitForPendingMail()
    const resetMail = (await readOutbox(email)).find((m) => m.subject === 'Reset your Facet Studio password')!
    const token = new URL(resetMail.link!).searchParams.get('token')
    expect((await c.post(resetConfirm, '/api/auth/password-reset/confirm/', { token, password: 'second-password' })).status).toBe(200)
    const signedIn = await c.post(login, '/api/auth/login/', { email, password: 'second-password' })
    expect(signedIn.status).toBe(200)
    expect(signedIn.body.credits.balance).toBe(50)
    // The older verification link is retired and cannot grant anything again.
    const verifyMail = (await readOutbox(email)).find((m) => m.subject === 'Confirm your email for Facet Studio')!
    const stale = await c.post(verify, '/api/auth/verify-email/', { token: new URL(verifyMail.link!).searchParams.get('token') })
    expect(stale.status).toBe(400)
  })

  it('limits reset requests per email', async () => {
    const c = client()
    const email = uniqueEmail()
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await c.post(resetRequest, '/api/auth/password-reset/', { email })).status)
    expect(statuses).toEqual([200, 200, 200, 429])
  })
})
