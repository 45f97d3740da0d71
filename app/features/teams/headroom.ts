// A team member's monthly cap as the screens show it before a run: how much of it is left, whether a
// run (or batch) of a given cost would pass it, and the words for both. Client-safe and pure: the tool
// pages, the batch screen and the header use it, and so does the server's check of a batch up front;
// the numbers come from headroom.server.ts.
import { formatCredits } from '~/utils/credits-word'

export interface CapHeadroom {
  /** The member's monthly cap on the team they work as. */
  limit: number
  /** Spent of it since the 1st (UTC), net of refunds. */
  used: number
  /** What a run may still take: never below 0. */
  left: number
}

export function headroomOf(limit: number, used: number): CapHeadroom {
  return { limit, used, left: Math.max(0, limit - used) }
}

/** A run of `cost` would pass the cap (the server would refuse it with a 402, charging nothing). */
export function passesCap(cap: CapHeadroom | null | undefined, cost: number): boolean {
  return cap !== null && cap !== undefined && cost > cap.left
}

/** The line under a tool's cost: "Your monthly cap on Acme: 3 of 10 credits left." */
export function headroomText(teamName: string, cap: CapHeadroom): string {
  return `Your monthly cap on ${teamName}: ${cap.left.toLocaleString('en-US')} of ${formatCredits(cap.limit)} left.`
}

export const OVER_CAP_TITLE = 'Past your monthly cap'
export const USE_OWN_CREDITS = 'Use my own credits'

/**
 * What the over-cap panel prices: one run (a tool page), a batch whose files are known, or each file of
 * a batch not chosen yet (or a zip, whose count the server learns).
 */
export type OverCapSubject = 'run' | 'batch' | 'file'

const SUBJECT_WORDS: Record<OverCapSubject, { costs: string; runIt: string }> = {
  run: { costs: 'This run costs', runIt: 'run it' },
  batch: { costs: 'This batch costs', runIt: 'run it' },
  file: { costs: 'Each file costs', runIt: 'run the batch' },
}

/** The over-cap panel's sentence, before anything is sent. */
export function overCapText(teamName: string, cap: CapHeadroom, cost: number, subject: OverCapSubject = 'run'): string {
  const words = SUBJECT_WORDS[subject]
  return `${words.costs} ${formatCredits(cost)} and ${formatCredits(cap.left)} of your monthly cap on ${teamName} ${cap.left === 1 ? 'is' : 'are'} left (${cap.used.toLocaleString('en-US')} of ${cap.limit.toLocaleString('en-US')} used). It resets on the 1st (UTC); a team owner or admin can raise it. Meanwhile you can ${words.runIt} on your own credits.`
}
