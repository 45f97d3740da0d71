// The account as the API shows it. Client-safe.
import type { SessionUser } from '~/features/auth/session.server'

/** A user in the /api/auth answers' shape. */
export function publicUser(user: SessionUser) {
  return { id: user.id, email: user.email, first_name: user.first_name, last_name: user.last_name }
}
