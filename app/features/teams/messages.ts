// The teams' refusals (and the invite page's guidance) in words, one place each (the API, the screens
// and the tests share them).
import { MAX_OWNED_TEAMS } from './roles'
import { formatCredits } from '~/utils/credits-word'

export const TEAM_NOT_FOUND = 'No such team.'
export const MEMBER_NOT_FOUND = 'No such member in this team.'
export const INVITE_NOT_FOUND = 'This invite link is not valid.'
export const INVITE_EXPIRED = 'This invite has expired. Ask the team for a new one.'
export const INVITE_USED = 'This invite has already been used.'
export const INVITE_REVOKED = 'This invite was withdrawn by the team.'
export const MANAGERS_ONLY = 'Only the team’s owners and admins can do this.'
export const OWNERS_ONLY = 'Only an owner can make or change owners.'
export const LAST_OWNER = 'A team needs an owner: make another member an owner first.'
export const ALREADY_MEMBER = 'This person is already a member of the team.'
export const NOT_A_MEMBER_ANY_MORE = 'You are not a member of this team.'
/**
 * A batch item whose turn came after its sender left the team (it fails unpaid, decision 062). Read by
 * the team's other members on the batch screen and in errors.json, so it names the sender, not "you".
 */
export const ITEM_SENDER_LEFT = 'Not run and not charged: the member who sent this file left the team before its turn came.'
export const TOO_MANY_TEAMS = `You own ${MAX_OWNED_TEAMS} teams already: hand one over or leave one before creating another.`
export const NAME_REQUIRED = 'Give the team a name (1 to 60 characters).'

/** The signed-out invite page, for someone without an account yet (the verification link returns here). */
export const INVITE_NEW_ACCOUNT_NOTE = 'New to Facet Studio? Create your account with this address: the link in the confirmation mail brings you back here, signed in, to accept.'

/**
 * The seat rule as the team page and the API documentation say it (teams.server.ts enforces it:
 * newInviteFits, acceptanceFits).
 */
export const SEAT_RULE =
  'Seats are members plus pending invites. A new invite needs a free seat. A pending invite already holds its seat: it can be accepted while the team has fewer members than its seat limit, even when the limit was lowered below the seats in use (nobody is removed).'

/** Accepting when every member seat is taken (the limit was lowered after the invite was sent). */
export function memberSeatsFull(limit: number): string {
  return `This team has ${limit} members already, all of its seats. Ask one of its owners or admins to free a seat, then accept again.`
}

export function seatsFull(limit: number): string {
  return `All ${limit} seats of this team are taken (members and pending invites). Remove a member or withdraw an invite first.`
}

export function wrongAddress(inviteEmail: string): string {
  return `This invite is for ${inviteEmail}. Sign in with that address to accept it.`
}

/** The way on from a cap refusal, in the API's words (the screens' is the "Use my own credits" button). */
const OWN_CREDITS_WAY = 'To use your own credits instead, switch to your own balance.'

/** The 402 of a run that would pass the member's monthly cap (nothing is charged). */
export function capMessage(cap: number, teamName: string, used: number): string {
  return `This run would pass your monthly cap of ${formatCredits(cap)} on team ${teamName} (${used} used this month). ${OWN_CREDITS_WAY}`
}

/** The 402 of a batch whose items would pass the member's monthly cap, before anything is stored or runs. */
export function batchCapMessage(cap: number, teamName: string, used: number, items: number, cost: number): string {
  const covered = Math.max(0, Math.floor((cap - used) / cost))
  return `This batch of ${items} files would pass your monthly cap of ${formatCredits(cap)} on team ${teamName} (${used} used this month): it covers ${covered} of them. ${OWN_CREDITS_WAY}`
}

export function teamBalanceShort(cost: number, teamName: string, balance: number): string {
  return `Not enough credits: this run costs ${cost} and team ${teamName}'s balance is ${balance}.`
}
/** /api/teams refuses team keys: a team's key must not act as its creator on the team. */
export const TEAM_KEY_REFUSED = 'A team key cannot manage teams: use a session or a personal key.'
