// How a visitor's free credits renew, in the words of the server's 402 (visitor.server.ts) and of the
// tool workspace's not-enough-credits panel: one sentence, so the page cannot promise more than the
// server grants. The allowance is shared by the visitors of one network (decision 080), so "refreshes
// to 5" is not what every visitor gets. Client-safe.

/** When guest credits renew, said without a date: every UTC midnight. */
export const GUEST_RENEWAL_TIME = '00:00 UTC'

/** `renewal`: the renewal time as the message should show it (a full UTC time in the 402). */
export function guestRenewalRule(renewal: string = GUEST_RENEWAL_TIME): string {
  return `Free credits are shared by the visitors of one network and renew at ${renewal}`
}
