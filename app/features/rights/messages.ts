// The words of the user's rights (decision 171): export and account deletion, one place each, shared
// by the dashboard, the deletion page, the API and the tests. Client-safe.

/** The dashboard's section about the user's data. */
export const YOUR_DATA_ANCHOR = '/dashboard#your-data'

export const EXPORT_LIMITED = 'Too many exports. Please wait a while and try again.'
export const DELETE_LIMITED = 'Too many attempts. Please wait a few minutes and try again.'
export const WRONG_PASSWORD = 'That is not your password. Type your current password to delete your account.'
export const PASSWORD_NEEDED = 'Type your password to confirm.'
export const RUNS_IN_PROGRESS = 'Some of your runs are still in progress. Wait until they finish (at most a few minutes), then delete your account.'
export const ALREADY_DELETED = 'This account no longer exists.'
export const ACCOUNT_DELETED = 'Your account has been deleted.'

/** The ledger description of a deleted account's last entry: what was left of its balance, taken off for the books. */
export const BALANCE_FORFEITED = 'Account deleted: remaining balance forfeited'

/** The last-owner refusal: which teams, and what must happen first. */
export function lastOwnerMessage(teamNames: string[]): string {
  const which = teamNames.length === 1 ? `team ${teamNames[0]}` : `teams ${teamNames.join(', ')}`
  return `You are the last owner of ${which}, which still has other members. Make another member an owner first (on the team's page), then delete your account. A team you are the only member of closes with your account.`
}

/** What deleting removes and what it keeps, as the confirmation page and the API documentation say it. */
export const DELETION_REMOVES = [
  'you are signed out everywhere, and every API key you made stops working;',
  'your results, corrections and run history are deleted, with your webhooks;',
  'you leave every team (a team you are the only member of closes), and invites to you or from you end;',
  'your name, email address and password are erased, and your remaining credits are forfeited.',
]
export const DELETION_KEEPS =
  'The credit ledger keeps its entries, with nothing that identifies you, for the books; the security log keeps the record that you deleted your account. You can sign up again with the same address later: it will be a new, empty account.'
