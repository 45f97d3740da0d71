// The account screens' loaders and actions (the same code a browser with or without JavaScript runs).
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { createVerifiedUser, linkMailedTo, uniqueAddress, uniqueEmail } from '~/features/auth/testing.server'
import { waitForPendingMail } from '~/features/mail/mailer.server'
import { readOutbox } from '~/features/mail/outbox.server'
import { BASE, cookieFrom, formRequest, readResult, routeArgs } from '../../tests/support/requests'
import { loader as dashboardLoader } from './dashboard'
import { action as loginAction, loader as loginLoader } from './login'
import { action as logoutAction } from './logout'
import { action as resetAction, loader as resetLoader } from './reset-password'
import { action as verifyAction, loader as verifyLoader } from './verify-email'

function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return routeArgs(formRequest(path, fields, { headers: { 'x-facet-client-ip': uniqueAddress(), ...headers } }))
}
function get(path: string, headers: Record<string, string> = {}) {
  return routeArgs(new Request(BASE + path, { headers }))
}
async function cookieFor(token: string) {
  return (await sessionCookieHeader(token)).split(';')[0]
}
async function thrown(fn: () => unknown): Promise<Response> {
  try {
    await fn()
  } catch (error) {
    if (error instanceof Response) return error
    throw error
  }
  throw new Error('expected a thrown response')
}

describe('/login', () => {
  it('signs in and returns to a same-site `from`, setting an httpOnly session cookie', async () => {
    const { user, password } = await createVerifiedUser()
    const res = await readResult(
      await loginAction(post('/login?from=%2Fcredits', { intent: 'login', email: user.email, password, from: '/credits' })),
    )
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/credits')
    const cookie = res.headers.get('set-cookie')!
    expect(cookie).toMatch(/^fs_session=/)
    expect(cookie).toMatch(/HttpOnly/i)
    expect(cookie).toMatch(/SameSite=Lax/i)
    // The cookie is a live session: /login now sends the user on to the dashboard.
    const again = await thrown(() => loginLoader(get('/login', { cookie: cookieFrom(res.headers) })))
    expect(again.headers.get('location')).toBe('/dashboard')
  })

  it('never redirects off-site, whatever `from` says', async () => {
    const { user, password } = await createVerifiedUser()
    const hostile = ['https://evil.example/', '//evil.example', '/\\evil.example', '/.//evil.example', '/..//evil.example', '/%2f%2fevil.example', '/\t/evil.example', 'javascript:alert(1)']
    for (const from of hostile) {
      const res = await readResult(
        await loginAction(post(`/login?from=${encodeURIComponent(from)}`, { intent: 'login', email: user.email, password, from })),
      )
      expect(res.status, from).toBe(302)
      expect(res.headers.get('location'), from).toBe('/dashboard')
      // The page never carries it into the form's hidden field either.
      const page = await loginLoader(get(`/login?from=${encodeURIComponent(from)}`))
      expect((page as { from: string }).from, from).toBe('/dashboard')
    }
  })

  it('shows one neutral message for wrong credentials and keeps passwords out of the reply', async () => {
    const { user } = await createVerifiedUser()
    const res = await readResult(await loginAction(post('/login', { intent: 'login', email: user.email, password: 'wrong-password' })))
    expect(res.status).toBe(400)
    expect(res.body.result.error['']).toEqual(['Invalid email or password.'])
    expect(res.body.result.initialValue.email).toBe(user.email)
    expect(res.body.result.initialValue.password).toBeUndefined()
  })

  it('tells an unverified user how to get a new link, and sends it', async () => {
    const email = uniqueEmail()
    const reg = await readResult(
      await loginAction(post('/login?mode=register', { intent: 'register', email, password: 'long-enough', confirm_password: 'long-enough' })),
    )
    expect(reg.status).toBe(200)
    const res = await readResult(await loginAction(post('/login', { intent: 'login', email, password: 'long-enough' })))
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('email_not_verified')
    expect(res.body.result.error[''][0]).toMatch(/verify your email/i)
    const resent = await readResult(await loginAction(post('/login', { intent: 'resend', email })))
    expect(resent.body.sent).toBe(true)
    await waitForPendingMail()
    expect(await readOutbox(email)).toHaveLength(2)
  })

  it('registers with trimmed names (empty ones omitted) and does not sign in', async () => {
    const email = uniqueEmail()
    const res = await readResult(
      await loginAction(
        post('/login?mode=register', {
          intent: 'register',
          email,
          password: 'long-enough',
          confirm_password: 'long-enough',
          first_name: '  Katherine ',
          last_name: '',
        }),
      ),
    )
    expect(res.status).toBe(200)
    expect(res.body.registered).toEqual({ email, expiresInHours: 24 })
    // No session: only the sign-up browser's key, which its link recognises (decision 162).
    expect(res.headers.getSetCookie().map((c) => c.split('=')[0])).toEqual(['fs_signup'])
    const row = await getDb().selectFrom('users').select(['first_name', 'last_name']).where('email', '=', email).executeTakeFirstOrThrow()
    expect(row).toEqual({ first_name: 'Katherine', last_name: null })
  })

  it("refuses mismatched passwords with 'Passwords do not match.' and creates nothing", async () => {
    const email = uniqueEmail()
    const res = await readResult(
      await loginAction(post('/login?mode=register', { intent: 'register', email, password: 'long-enough', confirm_password: 'long-enougH' })),
    )
    expect(res.status).toBe(400)
    expect(res.body.result.error.confirm_password).toEqual(['Passwords do not match.'])
    expect(await getDb().selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()).toBeUndefined()
  })

  it('answers the forgot-password form neutrally and mails a reset link only to a real account', async () => {
    const { user } = await createVerifiedUser()
    const nobody = uniqueEmail()
    const a = await readResult(await loginAction(post('/login?forgot=1', { intent: 'forgot', email: user.email })))
    const b = await readResult(await loginAction(post('/login?forgot=1', { intent: 'forgot', email: nobody })))
    expect(a.body.sent).toBe(true)
    expect(b.body.sent).toBe(true)
    const link = await linkMailedTo(user.email)
    expect(link.pathname).toBe('/reset-password')
    expect(await readOutbox(nobody)).toHaveLength(0)
  })

  it('answers 429 with Retry-After once the sign-in budget is spent', async () => {
    const { user } = await createVerifiedUser()
    const address = uniqueAddress()
    let last
    for (let i = 0; i < 11; i++) {
      last = await readResult(
        await loginAction(post('/login', { intent: 'login', email: user.email, password: 'wrong-password' }, { 'x-facet-client-ip': address })),
      )
    }
    expect(last!.status).toBe(429)
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(last!.body.result.error['']).toEqual(['Too many sign-in attempts. Please wait a few minutes and try again.'])
  })
})

describe('/verify-email', () => {
  it('does not spend the token on GET; the POST verifies, signs in and reports the bonus', async () => {
    const email = uniqueEmail()
    const registered = await readResult(await loginAction(post('/login?mode=register', { intent: 'register', email, password: 'long-enough', confirm_password: 'long-enough' })))
    const signUpBrowser = { cookie: cookieFrom(registered.headers) }
    const token = (await linkMailedTo(email)).searchParams.get('token')!
    expect(await verifyLoader(get(`/verify-email?token=${token}`))).toMatchObject({ token, verified: false })
    expect(await verifyLoader(get(`/verify-email?token=${token}`))).toMatchObject({ token, verified: false })

    const res = await readResult(await verifyAction(post(`/verify-email?token=${token}`, { token }, signUpBrowser)))
    // Post/redirect/get: the next page load carries the new session cookie.
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/verify-email?verified=1&welcome=1')
    const cookie = cookieFrom(res.headers)
    expect(cookie).toMatch(/^fs_session=/)
    expect(await verifyLoader(get('/verify-email?verified=1&welcome=1', { cookie }))).toEqual({ token: null, from: null, verified: true, welcome: true, bonus: 50 })
    // Without a session the same address claims nothing.
    expect(await verifyLoader(get('/verify-email?verified=1&welcome=1'))).toEqual({ token: null, from: null, verified: false, welcome: false, bonus: 50 })

    const again = await readResult(await verifyAction(post(`/verify-email?token=${token}`, { token })))
    expect(again.status).toBe(400)
    expect(again.body.ok).toBe(false)
    expect(again.body.error).toMatch(/already been used/)

    const dashboard = await readResult(await dashboardLoader(get('/dashboard', { cookie })))
    expect(dashboard.body.summary.balance).toBe(50)
  })

  it('says the token is missing when there is none', async () => {
    const res = await readResult(await verifyAction(post('/verify-email', {})))
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('Verification token missing. Please use the link from your email.')
    expect(await verifyLoader(get('/verify-email'))).toMatchObject({ token: null, verified: false })
  })
})

describe('/reset-password', () => {
  it('sets the new password from the mailed link, signs out other sessions, and sends the user to sign in', async () => {
    const { user, password, token: oldSession } = await createVerifiedUser()
    await loginAction(post('/login?forgot=1', { intent: 'forgot', email: user.email }))
    const token = (await linkMailedTo(user.email)).searchParams.get('token')!
    expect(await resetLoader(get(`/reset-password?token=${token}`))).toEqual({ token })

    const mismatch = await readResult(
      await resetAction(post('/reset-password', { token, password: 'new-password-1', confirm_password: 'new-password-2' })),
    )
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.result.error.confirm_password).toEqual(['Passwords do not match.'])

    const done = await readResult(await resetAction(post('/reset-password', { token, password: 'new-password-1', confirm_password: 'new-password-1' })))
    expect(done.status).toBe(302)
    expect(done.headers.get('location')).toBe('/login?reset=done')

    const stale = await thrown(async () => dashboardLoader(get('/dashboard', { cookie: await cookieFor(oldSession) })))
    expect(stale.status).toBe(302)
    const oldLogin = await readResult(await loginAction(post('/login', { intent: 'login', email: user.email, password })))
    expect(oldLogin.status).toBe(400)
    const newLogin = await readResult(await loginAction(post('/login', { intent: 'login', email: user.email, password: 'new-password-1' })))
    expect(newLogin.status).toBe(302)

    const reused = await readResult(await resetAction(post('/reset-password', { token, password: 'new-password-3', confirm_password: 'new-password-3' })))
    expect(reused.status).toBe(400)
    expect(reused.body.result.error[''][0]).toMatch(/already been used/)
  })
})

describe('/dashboard guard and /logout', () => {
  it('sends a signed-out visitor to /login with `from`', async () => {
    const res = await thrown(() => dashboardLoader(get('/dashboard?tab=x')))
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/login?from=%2Fdashboard%3Ftab%3Dx')
    // Not Remix's replace(): that would overwrite the page the visitor came from (see guard.server.ts).
    expect(res.headers.get('x-remix-replace')).toBeNull()
  })

  it('shows the account figures, then /logout revokes the session and clears the cookie', async () => {
    const { user, token } = await createVerifiedUser({ first_name: 'Ada', last_name: 'Lovelace' })
    const cookie = await cookieFor(token)
    const res = await readResult(await dashboardLoader(get('/dashboard', { cookie })))
    expect(res.body.user).toMatchObject({ id: user.id, first_name: 'Ada', last_name: 'Lovelace' })
    expect(res.body.source).toBe('user')
    expect(res.body.recent.length).toBeLessThanOrEqual(5)
    expect(res.body.totalTransactions).toBe(res.body.recent.length)

    const out = await readResult(await logoutAction(post('/logout', {}, { cookie })))
    expect(out.status).toBe(302)
    expect(out.headers.get('location')).toBe('/')
    expect(out.headers.get('set-cookie')).toMatch(/fs_session=;.*Max-Age=0/i)
    const after = await thrown(() => dashboardLoader(get('/dashboard', { cookie })))
    expect(after.headers.get('location')).toBe('/login?from=%2Fdashboard')
  })
})
