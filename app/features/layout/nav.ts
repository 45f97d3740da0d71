// The site's navigation, shared by the header, the mobile menu and the footer. Client-safe.
import { TOOL_LIST } from '~/catalog/tools'
import type { Viewer } from '~/features/account/viewer'
import { formatCredits } from '~/utils/credits-word'

export const PRIMARY_LINKS = [
  { to: '/', label: 'Home' },
  { to: '/about', label: 'About' },
  { to: '/api', label: 'API' },
  { to: '/contact', label: 'Contact' },
] as const

export const TOOL_LINKS = TOOL_LIST.map((t) => ({ to: t.path, label: t.name, description: t.description }))

/** The batch screen: many files through one tool (after the five tools in the header's Tools menu). */
export const BATCH_LINK = { to: '/tools/batch', label: 'Batch', description: 'Many files through one tool, downloaded as one zip.' } as const

/** The caller's runs of the last 24 hours (guests and accounts alike): in the header and the mobile menu. */
export const HISTORY_LINK = { to: '/history', label: 'History' } as const

export const COMPANY_LINKS = [
  { to: '/about', label: 'About' },
  { to: '/pricing', label: 'Pricing' },
  { to: '/api', label: 'API' },
  { to: '/contact', label: 'Contact' },
] as const

/**
 * One word for each account action, everywhere (issue 35; decision 174): the spec's own sentences say
 * "Sign in" ('Sign in to purchase credits', 'Sign in to track usage credits.'), so its 'Get in' and
 * 'Logout' give way to "Sign in" and the mobile menu's "Sign out".
 */
export const SIGN_IN_LABEL = 'Sign in'
export const SIGN_OUT_LABEL = 'Sign out'

export const LEGAL_LINKS = [
  { to: '/terms', label: 'Terms of Service' },
  { to: '/privacy', label: 'Privacy Policy' },
] as const

/** Spec §2: '{n} credits' with a locale-formatted number ('1 credit'), or 'Credits' when the balance is unknown. */
export function creditsLabel(credits: Viewer['credits']): string {
  if (!credits || !Number.isFinite(credits.balance)) return 'Credits'
  return formatCredits(credits.balance)
}

/** Spec §2: the full name, else the email, else 'Dashboard'. */
export function dashboardLabel(user: Viewer['user']): string {
  if (!user) return 'Dashboard'
  const fullName = [user.first_name, user.last_name]
    .map((part) => part?.trim())
    .filter(Boolean)
    .join(' ')
  return fullName || user.email?.trim() || 'Dashboard'
}
