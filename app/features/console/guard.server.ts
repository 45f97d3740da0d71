// Who may open the operator console: a signed-in (cookie or token) user whose verified email is in
// OPERATOR_EMAILS. Everyone else, guests included, gets the site's plain 404, exactly as for a path
// that does not exist: the console's existence is not something to confirm to a stranger (a 403
// would). Called on the first line of every /console loader and action.
import { config } from '~/config.server'
import { getAuthentication, type SessionUser } from '~/features/auth/session.server'

export function isOperatorEmail(email: string, operatorEmails: string[] = config().OPERATOR_EMAILS): boolean {
  return operatorEmails.includes(email.trim().toLowerCase())
}

export async function requireOperator(request: Request): Promise<SessionUser> {
  const auth = await getAuthentication(request)
  // Only a session: an API key is a script's credential, not an operator at a screen. Sign-in needs a
  // verified address, so an email here is one its owner proved.
  if (auth.kind === 'user' && isOperatorEmail(auth.user.email)) return auth.user
  throw new Response('Not found', { status: 404 })
}
