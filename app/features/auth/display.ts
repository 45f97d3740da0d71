// How a user is named on screen. Client-safe.
interface Named {
  email?: string | null
  first_name?: string | null
  last_name?: string | null
}

export function fullName(user: Named | null | undefined): string {
  return [user?.first_name, user?.last_name].filter((p) => p && p.trim()).join(' ').trim()
}

/** First and last name, else the email, else the fallback. */
export function displayName(user: Named | null | undefined, fallback = 'Your account'): string {
  return fullName(user) || user?.email || fallback
}
