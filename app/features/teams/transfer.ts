// Moving one's own credits into a team: what the form and the API take, and the words of the
// refusals. Client-safe, zod/mini (decision 148; the team page's form validates with the same schema the API does); the
// rule itself is transfer.server.ts's.
import { z } from 'zod/mini'
import { formatCredits } from '~/utils/credits-word'

/** The most one transfer moves (a bound for a typing slip, not a business rule). */
export const MAX_TRANSFER = 1_000_000

const AMOUNT_MESSAGE = `Enter a whole number of credits, from 1 to ${MAX_TRANSFER.toLocaleString('en-US')}.`

export const TRANSFER_AMOUNT_MESSAGE = AMOUNT_MESSAGE

const amountChecks = [z.int(AMOUNT_MESSAGE), z.gte(1, AMOUNT_MESSAGE), z.lte(MAX_TRANSFER, AMOUNT_MESSAGE)] as const

/** The team page's form (its field is text, so it is coerced). */
export const transferFormSchema = z.object({ amount: z.coerce.number({ error: AMOUNT_MESSAGE }).check(...amountChecks) })

/** POST /api/teams/<id>/transfers/: a JSON number (a string or a boolean is refused, not coerced). */
export const transferApiSchema = z.object({ amount: z.number({ error: AMOUNT_MESSAGE }).check(...amountChecks) })

/** What a user may move now: the balance above the daily floor (the floor stays theirs: decision 140). */
export function movable(balance: number, dailyFloor: number): number {
  return Math.max(0, balance - Math.max(0, dailyFloor))
}

/** A transfer past what may be moved: says the balance, what may move, and why the rest stays. */
export function transferTooLarge(amount: number, balance: number, dailyFloor: number): string {
  const can = movable(balance, dailyFloor)
  const floor = dailyFloor > 0 ? ` (the first ${formatCredits(dailyFloor)} stay with you: they are your daily allowance)` : ''
  if (can === 0) return `You have no credits to move: your balance is ${formatCredits(balance)}${floor}.`
  return `You can move at most ${formatCredits(can)}: your balance is ${formatCredits(balance)}${floor}. You asked to move ${formatCredits(amount)}.`
}

export function transferDone(amount: number, teamName: string): string {
  return `${formatCredits(amount)} moved to ${teamName}.`
}

/** Transfers one user may make per hour (each is two ledger rows and an audit row). */
export const TRANSFERS_PER_HOUR = 20

export const TRANSFER_RATE_LIMITED = 'Too many transfers in a short time.'

/** The ledger rows' descriptions: the member's own account, and the team's. */
export function transferOutDescription(teamName: string): string {
  return `Moved to team ${teamName}`
}
export const TRANSFER_IN_DESCRIPTION = 'Moved in from a member’s own credits'
