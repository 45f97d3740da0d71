// The team screens' loaders and actions (the code a browser runs with or without JavaScript): each
// form reaches its domain function, a refusal comes back on the form with the domain's status, and
// a form that worked redirects with its notice, which the page shows once (a flash cookie).
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { createVerifiedUser, linkMailedTo, uniqueAddress, uniqueEmail } from '~/features/auth/testing.server'
import { loadViewer } from '~/features/account/viewer.server'
import { INVITE_EXPIRED, INVITE_USED, LAST_OWNER, MANAGERS_ONLY } from '~/features/teams/messages'
import { latestMailTo } from '~/features/mail/outbox.server'
import { TEAM_NOTICES, type TeamNotice } from '~/features/teams/ui/forms'
import { BASE, cookieFrom, formRequest, readResult, routeArgs } from '../../tests/support/requests'
import { action as teamAction, loader as teamLoader } from './teams.$id'
import { action as teamsAction, loader as teamsLoader } from './teams._index'
import { action as acceptAction, loader as inviteLoader } from './teams.invites.$token'
import { action as workingAsAction } from './teams.working-as'
import { action as loginAction, loader as loginLoader } from './login'
import { action as verifyAction, loader as verifyLoader } from './verify-email'

async function signedIn() {
  const made = await createVerifiedUser()
  const cookie = (await sessionCookieHeader(made.token)).split(';')[0]
  return { ...made, cookie }
}
type Person = Awaited<ReturnType<typeof signedIn>>

function post(person: Person | null, path: string, fields: Record<string, string>, params: Record<string, string> = {}) {
  return routeArgs(formRequest(path, fields, { headers: person ? { cookie: person.cookie } : {} }), params)
}
function get(person: Person | null, path: string, params: Record<string, string> = {}) {
  return routeArgs(new Request(BASE + path, { headers: person ? { cookie: person.cookie } : {} }), params)
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

/** A team screen's loader for `path` (/teams or /teams/<id>), with exactly these cookies. */
async function loadPage(path: string, cookie: string) {
  const id = path.split('/')[2]
  const args = routeArgs(new Request(BASE + path, { headers: { cookie } }), id ? { id } : {})
  return readResult(await (id ? teamLoader(args) : teamsLoader(args)))
}

/**
 * Follows a form's 303 as a browser does (sending the cookie it set) and then reloads that page (the
 * browser has dropped the cleared cookie by then): where it led, what the page said on arrival, and
 * what it says on the reload.
 */
async function follow(person: Person, res: { status: number; headers: Headers }) {
  expect(res.status).toBe(303)
  const location = res.headers.get('location')!
  const arrival = await loadPage(location, `${person.cookie}; ${cookieFrom(res.headers)}`)
  // The page's answer clears the notice in the browser.
  expect(arrival.headers.getSetCookie().some((c) => c.startsWith('fs_team_notice=;') && /Max-Age=0/i.test(c))).toBe(true)
  const reload = await loadPage(location, person.cookie)
  return { location, notice: arrival.body.notice as string | null, afterReload: reload.body.notice as string | null }
}

async function expectNotice(person: Person, res: { status: number; headers: Headers }, location: string, notice: TeamNotice) {
  expect(await follow(person, res)).toEqual({ location, notice: TEAM_NOTICES[notice], afterReload: null })
}

async function teamOf(owner: Person, name = 'Studio North') {
  const res = await readResult(await teamsAction(post(owner, '/teams?index', { name })))
  expect(res.status).toBe(303)
  const location = res.headers.get('location')!
  expect(location).toMatch(/^\/teams\/[0-9a-f-]{36}$/)
  await expectNotice(owner, res, location, 'created')
  return location.split('/')[2]
}

async function invited(owner: Person, teamId: string, email: string, role = 'member') {
  const res = await readResult(await teamAction(post(owner, `/teams/${teamId}`, { intent: 'invite', email, role }, { id: teamId })))
  await expectNotice(owner, res, `/teams/${teamId}`, 'invited')
  const link = await linkMailedTo(email)
  expect(link.pathname).toMatch(/^\/teams\/invites\/.+/)
  return link.pathname.split('/')[3]
}

describe('team screens', () => {
  it('signed out, /teams sends to sign in with `from`', async () => {
    const res = await thrown(() => teamsLoader(get(null, '/teams')))
    expect(res.headers.get('location')).toBe('/login?from=%2Fteams')
  })

  it('creates a team, lists it, and refuses a blank name with a message', async () => {
    const owner = await signedIn()
    const blank = await readResult(await teamsAction(post(owner, '/teams?index', { name: '   ' })))
    expect(blank.status).toBe(400)
    expect(blank.body.result.error.name).toBeTruthy()
    const teamId = await teamOf(owner)
    const list = await readResult(await teamsLoader(get(owner, '/teams')))
    expect(list.body.teams).toEqual([{ id: teamId, name: 'Studio North', role: 'owner' }])
    const page = await readResult(await teamLoader(get(owner, `/teams/${teamId}`, { id: teamId })))
    expect(page.body.team).toMatchObject({ id: teamId, balance: 0, viewerRole: 'owner', seats: { used: 1 } })
  })

  it('invite, accept, member view: a member sees their own share and the server refuses their invite form (403)', async () => {
    const owner = await signedIn()
    const member = await signedIn()
    const teamId = await teamOf(owner)
    const token = await invited(owner, teamId, member.user.email)

    // Another signed-in address is told which one to use; nothing is accepted.
    const described = await readResult(await inviteLoader(get(owner, `/teams/invites/${token}`, { token })))
    expect(described.status).toBe(200)
    expect(described.body).toMatchObject({ status: 'pending', sameAddress: false, email: member.user.email })
    const wrong = await readResult(await acceptAction(post(owner, `/teams/invites/${token}`, {}, { token })))
    expect(wrong.status).toBe(403)

    const accepted = await readResult(await acceptAction(post(member, `/teams/invites/${token}`, {}, { token })))
    await expectNotice(member, accepted, `/teams/${teamId}`, 'joined')
    const used = await readResult(await inviteLoader(get(member, `/teams/invites/${token}`, { token })))
    expect(used.status).toBe(410)
    expect(used.body.message).toBe(INVITE_USED)

    const view = await readResult(await teamLoader(get(member, `/teams/${teamId}`, { id: teamId })))
    expect(view.body.team.viewerRole).toBe('member')
    expect(view.body.team.members.map((m: { email: string }) => m.email)).toEqual([member.user.email])
    expect(view.body.team.invites).toEqual([])
    const refused = await readResult(
      await teamAction(post(member, `/teams/${teamId}`, { intent: 'invite', email: 'someone@example.test', role: 'member' }, { id: teamId })),
    )
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ form: 'invite', result: { error: { '': [MANAGERS_ONLY] } } })

    // Caps and roles from the owner's forms; the last owner cannot leave (409, on the leave form).
    const capped = await readResult(await teamAction(post(owner, `/teams/${teamId}`, { intent: 'set-cap', member: member.user.id, cap: '5' }, { id: teamId })))
    await expectNotice(owner, capped, `/teams/${teamId}`, 'cap-set')
    const cleared = await readResult(await teamAction(post(owner, `/teams/${teamId}`, { intent: 'set-cap', member: member.user.id, cap: '' }, { id: teamId })))
    await expectNotice(owner, cleared, `/teams/${teamId}`, 'cap-cleared')
    const leave = await readResult(await teamAction(post(owner, `/teams/${teamId}`, { intent: 'leave' }, { id: teamId })))
    expect(leave.status).toBe(409)
    expect(leave.body).toMatchObject({ form: 'leave', result: { error: { '': [LAST_OWNER] } } })

    // Removed: the team page is a 404 for them at once.
    const removed = await readResult(await teamAction(post(owner, `/teams/${teamId}`, { intent: 'remove', member: member.user.id }, { id: teamId })))
    await expectNotice(owner, removed, `/teams/${teamId}`, 'removed')
    expect((await thrown(() => teamLoader(get(member, `/teams/${teamId}`, { id: teamId })))).status).toBe(404)
  })

  it('team API keys: an owner makes one (shown once, in the answer only) and revokes it; a member sees none and is refused', async () => {
    const owner = await signedIn()
    const member = await signedIn()
    const teamId = await teamOf(owner)
    const token = await invited(owner, teamId, member.user.email)
    await acceptAction(post(member, `/teams/invites/${token}`, {}, { token }))

    const made = await readResult(await teamAction(post(owner, `/teams/${teamId}`, { intent: 'create-key', name: 'Agency sync', environment: 'test' }, { id: teamId })))
    expect(made.status).toBe(201)
    expect(made.body.created).toMatchObject({ name: 'Agency sync', environment: 'test', key: expect.stringMatching(/^fs_test_/) })
    const page = await readResult(await teamLoader(get(owner, `/teams/${teamId}`, { id: teamId })))
    expect(page.body.keys).toEqual([expect.objectContaining({ name: 'Agency sync', environment: 'test', prefix: made.body.created.key.slice(0, 12) })])
    expect(JSON.stringify(page.body)).not.toContain(made.body.created.key)

    const memberPage = await readResult(await teamLoader(get(member, `/teams/${teamId}`, { id: teamId })))
    expect(memberPage.body.keys).toEqual([])
    const refused = await readResult(await teamAction(post(member, `/teams/${teamId}`, { intent: 'create-key', name: 'Mine', environment: 'live' }, { id: teamId })))
    expect(refused.status).toBe(403)
    expect(refused.body.created).toBeUndefined()

    const revoked = await readResult(await teamAction(post(owner, `/teams/${teamId}`, { intent: 'revoke-key', key: page.body.keys[0].id }, { id: teamId })))
    await expectNotice(owner, revoked, `/teams/${teamId}`, 'key-revoked')
    expect((await readResult(await teamLoader(get(owner, `/teams/${teamId}`, { id: teamId })))).body.keys).toEqual([])
  })

  it('an expired invite answers 410 with its message; an unknown token 404', async () => {
    const owner = await signedIn()
    const teamId = await teamOf(owner)
    const token = await invited(owner, teamId, 'late@example.test')
    await getDb().updateTable('team_invites').set({ expires_at: new Date(Date.now() - 1000) }).where('team_id', '=', teamId).execute()
    const expired = await readResult(await inviteLoader(get(null, `/teams/invites/${token}`, { token })))
    expect(expired.status).toBe(410)
    expect(expired.body).toMatchObject({ status: 'expired', message: INVITE_EXPIRED })
    expect((await thrown(() => inviteLoader(get(null, '/teams/invites/nope', { token: 'nope' })))).status).toBe(404)
  })

  it('the Working as switch sets the session’s team and goes back to a same-site `from` only', async () => {
    const owner = await signedIn()
    const teamId = await teamOf(owner)
    const to = await readResult(await workingAsAction(post(owner, '/teams/working-as', { team: teamId, from: '/tools/background-remover' })))
    expect(to.status).toBe(303)
    expect(to.headers.get('location')).toBe('/tools/background-remover')
    const { viewer } = await loadViewer(new Request(BASE + '/', { headers: { cookie: owner.cookie } }))
    expect(viewer.workingTeam).toEqual({ id: teamId, name: 'Studio North', cap: null })
    expect(viewer.credits).toEqual({ source: 'team', balance: 0 })

    const back = await readResult(await workingAsAction(post(owner, '/teams/working-as', { team: '', from: 'https://evil.example/' })))
    expect(back.headers.get('location')).toBe('/teams')
    expect((await loadViewer(new Request(BASE + '/', { headers: { cookie: owner.cookie } }))).viewer.workingTeam).toBeNull()

    // Another team's id: refused, the session stays on the own balance.
    const stranger = await signedIn()
    const refused = await readResult(await workingAsAction(post(stranger, '/teams/working-as', { team: teamId, from: '/' })))
    await expectNotice(stranger, refused, '/teams', 'not-a-member')
  })

  it('a notice is shown once, on the page it was meant for, and only from a cookie the server signed', async () => {
    const owner = await signedIn()
    const teamId = await teamOf(owner)
    const set = await readResult(await teamAction(post(owner, `/teams/${teamId}`, { intent: 'invite', email: 'once@example.test', role: 'member' }, { id: teamId })))
    const flash = cookieFrom(set.headers)
    expect(flash).toMatch(/^fs_team_notice=/)
    // Nothing of it in the address: a reload or a shared link cannot repeat it.
    expect(set.headers.get('location')).toBe(`/teams/${teamId}`)

    // Another page the cookie reaches first drops it without showing it there.
    const elsewhere = await loadPage('/teams', `${owner.cookie}; ${flash}`)
    expect(elsewhere.body.notice).toBeNull()
    expect(elsewhere.headers.getSetCookie().join()).toMatch(/fs_team_notice=;.*Max-Age=0/i)

    // A cookie the client wrote itself (no valid signature) says nothing, whatever it holds.
    const forged = `fs_team_notice=${encodeURIComponent(Buffer.from(JSON.stringify({ to: `/teams/${teamId}`, notice: 'joined' })).toString('base64'))}`
    expect((await loadPage(`/teams/${teamId}`, `${owner.cookie}; ${forged}`)).body.notice).toBeNull()

    // A page reached with no notice sets no cookie at all.
    expect((await loadPage(`/teams/${teamId}`, owner.cookie)).headers.getSetCookie()).toEqual([])
  })
})

describe('from an invite, through sign-up or sign-in, back to the invite', () => {
  /** A form post from a signed-out browser (a client address of its own: rate limits stay apart). */
  /** A post from a signed-out browser; `cookie`: what it holds (the sign-up's fs_signup key, decision 162). */
  function anonymousPost(path: string, fields: Record<string, string>, cookie?: string) {
    return routeArgs(formRequest(path, fields, { headers: { 'x-facet-client-ip': uniqueAddress(), ...(cookie ? { cookie } : {}) } }))
  }
  const linkPath = (href: string) => {
    const url = new URL(href, BASE)
    return url.pathname + url.search
  }

  it('a new account: register from the invite, open the mailed link, land on the invite signed in, accept', async () => {
    const owner = await signedIn()
    const teamId = await teamOf(owner)
    const email = uniqueEmail('newcomer')
    const token = await invited(owner, teamId, email)
    const invitePath = `/teams/invites/${token}`

    // The signed-out invite page's "Create an account" link, and the register form it leads to.
    const page = await readResult(await inviteLoader(get(null, invitePath, { token })))
    expect(page.body.signUpHref).toBe(`/login?mode=register&from=${encodeURIComponent(invitePath)}`)
    const login = (await loginLoader(get(null, linkPath(page.body.signUpHref)))) as { mode: string; from: string }
    expect(login).toMatchObject({ mode: 'register', from: invitePath })
    const registered = await readResult(
      await loginAction(
        anonymousPost(linkPath(page.body.signUpHref), { intent: 'register', email, password: 'long-enough-pw', confirm_password: 'long-enough-pw', from: login.from }),
      ),
    )
    expect(registered.body.registered).toMatchObject({ email })

    // The verification mail's link keeps the way back beside its token.
    const link = await linkMailedTo(email)
    expect(link.pathname).toBe('/verify-email')
    expect(link.searchParams.get('from')).toBe(invitePath)
    const verifyToken = link.searchParams.get('token')!
    expect((await getDb().selectFrom('user_tokens').select('token_hash').where('token_hash', '=', verifyToken).execute()).length).toBe(0)

    // Opening it (GET) spends nothing; the page's form (posted by script, or by its button) verifies
    // and goes on to the invite with the new session.
    const opened = await verifyLoader(get(null, linkPath(link.href)))
    expect(opened).toMatchObject({ token: verifyToken, from: invitePath, verified: false })
    const verified = await readResult(await verifyAction(anonymousPost(linkPath(link.href), { token: verifyToken, from: opened.from! }, cookieFrom(registered.headers))))
    expect(verified.status).toBe(302)
    expect(verified.headers.get('location')).toBe(invitePath)
    const cookie = cookieFrom(verified.headers)
    expect(cookie).toMatch(/^fs_session=/)

    const newcomer = { cookie } as Person
    const landed = await readResult(await inviteLoader(get(newcomer, invitePath, { token })))
    expect(landed.body).toMatchObject({ status: 'pending', signedInAs: email, sameAddress: true, wrongAddress: null })
    const accepted = await readResult(await acceptAction(post(newcomer, invitePath, {}, { token })))
    await expectNotice(newcomer, accepted, `/teams/${teamId}`, 'joined')

    // The link is single-use: a second post is refused and goes nowhere.
    const again = await readResult(await verifyAction(anonymousPost(linkPath(link.href), { token: verifyToken, from: invitePath })))
    expect(again.status).toBe(400)
    expect(again.body.error).toMatch(/already been used/)
  })

  it('an edited `from` in a verification link leads only to a path on this site', async () => {
    const hostile = ['https://evil.example/teams/invites/x', '//evil.example', '/\\evil.example', '/.//evil.example', '/%2f%2fevil.example', 'javascript:alert(1)']
    for (const from of hostile) {
      const email = uniqueEmail('edited')
      const registered = await readResult(await loginAction(anonymousPost('/login?mode=register', { intent: 'register', email, password: 'long-enough-pw', confirm_password: 'long-enough-pw', from })))
      // Never written into the mail in the first place...
      const link = await linkMailedTo(email)
      expect(link.searchParams.has('from'), from).toBe(false)
      // ...and never followed when someone adds it to the link afterwards.
      const token = link.searchParams.get('token')!
      const edited = `/verify-email?${new URLSearchParams({ token, from })}`
      expect((await verifyLoader(get(null, edited))).from, from).toBeNull()
      const res = await readResult(await verifyAction(anonymousPost(edited, { token, from }, cookieFrom(registered.headers))))
      expect(res.headers.get('location'), from).toBe('/verify-email?verified=1&welcome=1')
    }
  })

  it('an existing account: sign-in from the invite lands on it; "create an account" mails a sign-in link back to it', async () => {
    const owner = await signedIn()
    const teamId = await teamOf(owner)
    const member = await createVerifiedUser()
    const token = await invited(owner, teamId, member.user.email)
    const invitePath = `/teams/invites/${token}`
    const page = await readResult(await inviteLoader(get(null, invitePath, { token })))
    expect(page.body.signInHref).toBe(`/login?from=${encodeURIComponent(invitePath)}`)

    const signedInRes = await readResult(
      await loginAction(anonymousPost(linkPath(page.body.signInHref), { intent: 'login', email: member.user.email, password: member.password, from: invitePath })),
    )
    expect(signedInRes.status).toBe(302)
    expect(signedInRes.headers.get('location')).toBe(invitePath)
    // A browser already signed in that opens the sign-in link goes straight on too.
    const cookie = cookieFrom(signedInRes.headers)
    const onward = await thrown(() => loginLoader(get({ cookie } as Person, linkPath(page.body.signInHref))))
    expect(onward.headers.get('location')).toBe(invitePath)

    await loginAction(
      anonymousPost(linkPath(page.body.signUpHref), {
        intent: 'register',
        email: member.user.email,
        password: 'another-long-pw',
        confirm_password: 'another-long-pw',
        from: invitePath,
      }),
    )
    const mailed = await linkMailedTo(member.user.email)
    expect(mailed.pathname + mailed.search).toBe(`/login?from=${encodeURIComponent(invitePath)}`)
    expect((await latestMailTo(member.user.email))?.subject).toBe('You already have a Facet Studio account')
  })
})
