// Words the account screens and endpoints share. Client-safe.
export const RESET_REQUESTED = "If an account exists, you'll receive reset instructions shortly."
export const RESEND_REQUESTED = 'If that account still needs verifying, a new verification link is on its way.'
export const PASSWORD_RESET_DONE = 'Your password has been reset. Sign in with your new password.'
export const GENERIC_FAILURE = 'Something went wrong. Please try again.'
export const VERIFY_FAILURE = 'We could not verify your email. Please try again.'
export const VERIFY_TOKEN_MISSING = 'Verification token missing. Please use the link from your email.'
export const CHECK_INBOX = 'Open it to activate your account and collect your free credits. You can close this page.'
/** After a sign-up that started elsewhere (a team invite): the verification link keeps `from`. */
export const CHECK_INBOX_RETURNS = 'Open it to activate your account and collect your free credits: it brings you back to the page you came from, signed in. You can close this page.'
/** A verification link opened in a browser other than the sign-up's (decision 162): whose account, before anything happens. */
export function continueAsText(email: string): string {
  return `This link confirms the account of ${email}. It was opened in a different browser from the one that signed up, so nothing happens until you continue. If this is not your account, close this page.`
}
export const VERIFY_SUCCESS = 'Your email is confirmed and your credits are ready to use.'
export const NOT_AUTHENTICATED = 'Authentication credentials were not provided.'
export const INVALID_SESSION = 'Your session has expired or was signed out. Please sign in again.'

export function registeredDetail(email: string, hours: number): string {
  return `We sent a verification link to ${email}. It expires in ${hours} hours.`
}
