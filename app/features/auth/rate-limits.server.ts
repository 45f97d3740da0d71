// Budgets for the account endpoints. Keys combine the client address with the email where there is
// one, so one noisy address cannot lock everyone else out, and a looser per-address budget caps
// guessing across many emails.
import { config } from '~/config.server'
import {
  clientAddress,
  consumeRateLimit,
  resetRateLimit,
  tooManyRequests,
  type RateLimitOutcome,
  type RateLimitRule,
} from '~/features/security/rate-limit.server'

export const RULES = {
  signInPerEmail: { name: 'auth-sign-in', points: 10, durationSeconds: 15 * 60 },
  signInPerAddress: { name: 'auth-sign-in-address', points: 100, durationSeconds: 15 * 60 },
  registerPerEmail: { name: 'auth-register', points: 5, durationSeconds: 60 * 60 },
  resendPerEmail: { name: 'auth-resend', points: 3, durationSeconds: 15 * 60 },
  resendPerAddress: { name: 'auth-resend-address', points: 30, durationSeconds: 60 * 60 },
  resetPerEmail: { name: 'auth-reset', points: 3, durationSeconds: 15 * 60 },
  resetPerAddress: { name: 'auth-reset-address', points: 30, durationSeconds: 60 * 60 },
  /** Guessing a 256-bit token is hopeless, but spending the database on tries is not free. */
  tokenPerAddress: { name: 'auth-token', points: 60, durationSeconds: 15 * 60 },
} satisfies Record<string, RateLimitRule>

/** Sign-ups one address may try an hour: an office or school behind one NAT address may need more. */
export const registerPerAddress = (): RateLimitRule => ({
  name: 'auth-register-address',
  points: config().SIGN_UPS_PER_ADDRESS,
  durationSeconds: 60 * 60,
})

export const RATE_LIMIT_MESSAGES = {
  signIn: 'Too many sign-in attempts. Please wait a few minutes and try again.',
  register: 'Too many sign-up attempts. Please wait a while and try again.',
  resend: 'Too many verification emails requested. Please wait a few minutes and try again.',
  reset: 'Too many password reset requests. Please wait a few minutes and try again.',
  token: 'Too many attempts. Please wait a few minutes and try again.',
} as const

export type Limited = { ok: false; retryAfterSeconds: number; message: string }

/** Spends one point from each rule; the first that is used up decides the answer. */
async function spend(request: Request, message: string, rules: Array<[RateLimitRule, string]>): Promise<Limited | null> {
  for (const [rule, key] of rules) {
    const outcome: RateLimitOutcome = await consumeRateLimit(rule, key)
    if (!outcome.ok) return { ok: false, retryAfterSeconds: outcome.retryAfterSeconds, message }
  }
  return null
}

const emailKey = (request: Request, email: string) => `${clientAddress(request)}|${email.trim().toLowerCase()}`

export function limitSignIn(request: Request, email: string) {
  return spend(request, RATE_LIMIT_MESSAGES.signIn, [
    [RULES.signInPerEmail, emailKey(request, email)],
    [RULES.signInPerAddress, clientAddress(request)],
  ])
}

/** A successful sign-in gives the per-email budget back: only failures should count. */
export function forgiveSignIn(request: Request, email: string) {
  return resetRateLimit(RULES.signInPerEmail, emailKey(request, email))
}

export function limitRegister(request: Request, email: string) {
  return spend(request, RATE_LIMIT_MESSAGES.register, [
    [RULES.registerPerEmail, email.trim().toLowerCase()],
    [registerPerAddress(), clientAddress(request)],
  ])
}

export function limitResend(request: Request, email: string) {
  return spend(request, RATE_LIMIT_MESSAGES.resend, [
    [RULES.resendPerEmail, email.trim().toLowerCase()],
    [RULES.resendPerAddress, clientAddress(request)],
  ])
}

export function limitReset(request: Request, email: string) {
  return spend(request, RATE_LIMIT_MESSAGES.reset, [
    [RULES.resetPerEmail, email.trim().toLowerCase()],
    [RULES.resetPerAddress, clientAddress(request)],
  ])
}

export function limitTokenUse(request: Request) {
  return spend(request, RATE_LIMIT_MESSAGES.token, [[RULES.tokenPerAddress, clientAddress(request)]])
}

export function limitedResponse(limited: Limited): Response {
  return tooManyRequests(limited, limited.message)
}
