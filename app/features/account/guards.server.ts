// The guards: each one answers "may this request go on?" on the first line of a loader or action, and
// when the answer is no it THROWS the refusal (a Response: a redirect, a 401, a 403 or a 404), so the
// route's next line only runs for a caller who may (the shape of Epic Stack's requireUserId). Remix
// answers a thrown Response as is, for pages and for /api routes alike.
//
// Pages that need a signed-in user send a signed-out visitor to /login with where they were going as
// `from`. The protected page never enters the history (the spec's "replacing history"): a document
// request is answered with a 302 before anything renders, and a client navigation waits for its
// loaders, so the redirect becomes the one new entry. Remix's replace() would be wrong here: it would
// overwrite the page the visitor came from, and Back would skip it.
import { redirect } from '@remix-run/node'
import { config } from '~/config.server'
import { errorResponse } from '~/http/errors.server'
import { INVALID_SESSION, NOT_AUTHENTICATED } from '~/features/auth/messages'
import type { SessionUser } from '~/features/auth/session.server'
import { KEY_INVALID, KEY_MALFORMED } from '~/features/api-keys/messages'
import { teamAccount } from '~/features/teams/membership.server'
import { TEAM_KEY_REFUSED, TEAM_NOT_FOUND } from '~/features/teams/messages'
import { requireTeamManager, TeamError } from '~/features/teams/teams.server'
import { authenticatedUser, getAuthentication, type Authentication } from './authentication.server'
import { TEAM_HEADER, TEAM_KEY_OTHER_TEAM_MESSAGE } from './caller.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { NO_STORE } from '~/http/headers'

export function loginPathFor(request: Request): string {
  const url = new URL(request.url)
  const from = url.pathname + url.search
  return `/login?${new URLSearchParams({ from })}`
}

/** A page for signed-in users (a session: cookie or token); anyone else is redirected to /login. */
export async function requireUser(request: Request): Promise<{ user: SessionUser; sessionId: string }> {
  const auth = await getAuthentication(request)
  if (auth.kind === 'user') return { user: auth.user, sessionId: auth.sessionId }
  throw redirect(loginPathFor(request))
}

export function isOperatorEmail(email: string, operatorEmails: string[] = config().OPERATOR_EMAILS): boolean {
  return operatorEmails.includes(email.trim().toLowerCase())
}

/**
 * Who may open the operator console: a signed-in (cookie or token) user whose verified email is in
 * OPERATOR_EMAILS. Everyone else, guests included, gets the site's plain 404, exactly as for a path
 * that does not exist: the console's existence is not something to confirm to a stranger (a 403
 * would). Called on the first line of every /console loader and action.
 */
export async function requireOperator(request: Request): Promise<SessionUser> {
  const auth = await getAuthentication(request)
  // Only a session: an API key is a script's credential, not an operator at a screen. Sign-in needs a
  // verified address, so an email here is one its owner proved.
  if (auth.kind === 'user' && isOperatorEmail(auth.user.email)) return auth.user
  throw new Response('Not found', { status: 404 })
}

/** The 401 for a caller who is not signed in, in words that say which credential failed. */
export function unauthorized(auth: Authentication): Response {
  let message = NOT_AUTHENTICATED
  let scheme = 'Token'
  if (auth.kind === 'invalid' && auth.via === 'key') {
    message = auth.reason === 'malformed' ? KEY_MALFORMED : KEY_INVALID
    scheme = 'Bearer'
  } else if (auth.kind === 'invalid') {
    message = INVALID_SESSION
  }
  return Response.json({ error: message, detail: message }, { status: 401, headers: { 'WWW-Authenticate': scheme, 'Cache-Control': 'no-store' } })
}

export interface ApiCaller {
  auth: Extract<Authentication, { kind: 'user' | 'key' }>
  user: SessionUser
}

/** An /api endpoint for a signed-in user behind a session or a key; anyone else gets the 401. */
export async function requireApiUser(request: Request): Promise<ApiCaller> {
  const auth = await getAuthentication(request)
  if (auth.kind === 'user' || auth.kind === 'key') return { auth, user: auth.user }
  throw unauthorized(auth)
}

/** A team key is the team's credential, not a person's: it neither reads nor deletes the person's account. */
export const TEAM_KEY_NOT_A_PERSON = "A team key cannot export or delete a person's account: use a session or a personal key."

/**
 * An /api endpoint about the person themselves (their data export, their account's deletion): a
 * session or a personal key; a team key is the team's, not a person's: 403.
 */
export async function requirePersonalApiUser(request: Request): Promise<ApiCaller> {
  const caller = await requireApiUser(request)
  if (caller.auth.kind === 'key' && caller.auth.apiKey.teamId) throw errorResponse(403, TEAM_KEY_NOT_A_PERSON, {}, NO_STORE)
  return caller
}

/**
 * The /api/teams endpoints: a session (cookie or Token) or a personal API key manages teams; a team key
 * cannot (it is the team's, not a person's, so it must not act as its creator on the team): 403.
 */
export async function requireTeamApiUser(request: Request): Promise<{ user: SessionUser; testKey: boolean }> {
  const auth = await getAuthentication(request)
  const user = authenticatedUser(auth)
  if (!user) throw unauthorized(auth)
  if (auth.kind === 'key' && auth.apiKey.teamId) throw errorResponse(403, TEAM_KEY_REFUSED, {}, NO_STORE)
  return { user, testKey: auth.kind === 'key' && auth.apiKey.environment === 'test' }
}

/**
 * The account whose settings (webhook endpoints) an /api request manages: a team key's team; the team
 * named in `X-Team` when the caller is one of its owners or admins (403 to other members, 404 to anyone
 * else); else the user's own account.
 */
export async function requireManagedAccount(request: Request): Promise<{ accountId: string; team: { teamId: string; actorUserId: string } | null }> {
  const caller = await requireApiUser(request)
  const named = request.headers.get(TEAM_HEADER)?.trim() || null
  const keyTeam = caller.auth.kind === 'key' ? caller.auth.apiKey.teamId : null
  if (keyTeam && named && named !== keyTeam) throw errorResponse(403, TEAM_KEY_OTHER_TEAM_MESSAGE)
  const teamId = keyTeam ?? named
  if (!teamId) return { accountId: await ensureUserAccount(caller.user.id), team: null }
  if (!keyTeam) {
    try {
      await requireTeamManager(caller.user.id, teamId)
    } catch (error) {
      if (error instanceof TeamError) throw errorResponse(error.status, error.message)
      throw error
    }
  }
  const team = await teamAccount(teamId)
  if (!team) throw errorResponse(404, TEAM_NOT_FOUND)
  // The person acting (a team key's creator, who still manages the team: decision 162), for the audit log.
  return { accountId: team.accountId, team: { teamId, actorUserId: caller.user.id } }
}
