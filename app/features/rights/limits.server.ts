// The rate limits of the user's rights (decision 171), per account: an export reads and decrypts
// every kept result, so a few an hour is plenty; a deletion checks a password, so its tries are
// counted like sign-ins (a stolen session must not become a password oracle).
import { consumeRateLimit, type RateLimitOutcome, type RateLimitRule } from '~/features/security/rate-limit.server'

export const RIGHTS_LIMITS = {
  exportPerUser: { name: 'account-export', points: 5, durationSeconds: 60 * 60 },
  deletePerUser: { name: 'account-delete', points: 5, durationSeconds: 15 * 60 },
} satisfies Record<string, RateLimitRule>

export function limitExport(userId: string): Promise<RateLimitOutcome> {
  return consumeRateLimit(RIGHTS_LIMITS.exportPerUser, userId)
}

export function limitDeletion(userId: string): Promise<RateLimitOutcome> {
  return consumeRateLimit(RIGHTS_LIMITS.deletePerUser, userId)
}
