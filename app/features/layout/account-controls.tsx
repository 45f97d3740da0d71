import { Form, Link } from '@remix-run/react'
import type { Viewer } from '~/features/account/viewer'
import { creditsLabel, SIGN_IN_LABEL, SIGN_OUT_LABEL } from '~/features/layout/nav'

const focusRing = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'

export function CreditsButton({
  credits,
  team = null,
  className = '',
  testId = 'credits-button',
}: {
  credits: Viewer['credits']
  /** The team whose credits are spent (working as a team): named before the count. */
  team?: string | null
  className?: string
  testId?: string
}) {
  return (
    <Link
      to="/credits"
      data-testid={testId}
      className={`inline-flex items-center gap-1.5 whitespace-nowrap rounded-full border border-indigo-200 bg-indigo-50 px-3 py-1.5 text-sm font-semibold text-indigo-800 hover:bg-indigo-100 ${focusRing} ${className}`}
    >
      <svg viewBox="0 0 20 20" className="h-4 w-4" aria-hidden="true">
        <circle cx="10" cy="10" r="7.5" fill="none" stroke="currentColor" strokeWidth="1.8" />
        <path d="M10 6v8M7.5 8.5h4a1.5 1.5 0 0 1 0 3h-3" fill="none" stroke="currentColor" strokeWidth="1.5" />
      </svg>
      {team ? (
        <>
          <span className="max-w-40 truncate">{team}</span>
          <span aria-hidden="true">{' · '}</span>
        </>
      ) : null}
      {creditsLabel(credits)}
    </Link>
  )
}

export function LogoutForm({ className = '' }: { className?: string }) {
  return (
    <Form method="post" action="/logout" className="contents">
      <button type="submit" className={className}>
        {SIGN_OUT_LABEL}
      </button>
    </Form>
  )
}


/** The signed-out visitor's way in: the header's and the mobile menu's. */
export function SignInLink({ className = '' }: { className?: string }) {
  return (
    <Link to="/login" className={className}>
      {SIGN_IN_LABEL}
    </Link>
  )
}
