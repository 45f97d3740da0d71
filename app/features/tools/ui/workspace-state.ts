// The workspace's states (issue 13): one name for what the screen is showing, derived from the
// browser run, a page posted without JavaScript, a job the page follows, and the balance. Each state
// has its own look and words (workspace.tsx). Client-safe and pure, so it is unit-tested.
import type { ProgressStep, ToolDefinition } from '~/catalog/tools'
import type { JobView } from '~/features/jobs/view'
import { TOO_SLOW_CODE } from '../../jobs/view'
import { type ToolPageResult } from './page-result'
import { UNUSABLE_FILE_STATUSES } from './tool-messages'
import type { RunStatus } from './use-tool-run'
import { guestRenewalRule } from '~/features/credits/guest-rule'
import { formatCredits } from '~/utils/credits-word'

export type WorkspacePhase =
  | 'empty'
  | 'checking'
  | 'rejected'
  | 'chosen'
  | 'uploading'
  | 'processing'
  | 'done'
  | 'no-face'
  | 'failed'
  | 'no-credits'
  /** Working as a team, the run would pass the member's monthly cap: refused before sending. */
  | 'over-cap'
  | 'sign-in'
  | 'model-missing'
  /** A page post refused because the image would not finish in time here (the JS page refuses it before upload). */
  | 'too-slow'

export interface PhaseInput {
  tool: ToolDefinition
  missingModels: readonly string[]
  checking: boolean
  rejection: string | null
  status: RunStatus
  progress: ProgressStep | null
  /** Faces found by the browser run that just ended (face blurrer), else null. */
  facesFound: number | null
  /** The run was refused before it was sent (the SVG converter for visitors). */
  needsSignIn: boolean
  pageResult: ToolPageResult | undefined
  job: JobView | null
  balance: number | null
  cost: number
  /** Working as a team, a run would pass the member's monthly cap (teams/headroom.ts: passesCap). */
  overCap?: boolean
}

export function workspacePhase(input: PhaseInput): WorkspacePhase {
  const { tool, status } = input
  if (input.missingModels.length > 0) return 'model-missing'
  if (input.checking) return 'checking'
  if (input.rejection) return 'rejected'
  if (status === 'processing') return input.progress?.message === tool.steps[0].message ? 'uploading' : 'processing'
  if (status === 'complete') return input.facesFound === 0 ? 'no-face' : 'done'
  const short = input.balance !== null && input.balance < input.cost
  // The balance is short, or (working as a team) the monthly cap is: each says what to do about it.
  const blocked = short ? 'no-credits' : input.overCap ? 'over-cap' : null
  // A failure that leaves the balance or the cap short (a 402, or a charge elsewhere meanwhile) says what to do about it.
  if (status === 'error') return input.needsSignIn ? 'sign-in' : (blocked ?? 'failed')
  if (status === 'ready') return blocked ?? 'chosen'
  const job = input.job
  if (job) {
    if (job.status === 'queued' || job.status === 'running') return 'processing'
    if (job.status === 'succeeded') return job.facesFound === 0 ? 'no-face' : 'done'
    return 'failed'
  }
  const page = input.pageResult
  if (page?.ok) return page.facesFound === 0 ? 'no-face' : 'done'
  if (page && !page.ok) {
    // A 402 with the balance enough for the run is another refusal (a team member's monthly cap):
    // its message, not the not-enough-credits panel, says why.
    if (page.status === 402 && (short || input.balance === null)) return 'no-credits'
    if (page.status === 402 && input.overCap) return 'over-cap'
    if (page.status === 401 && tool.signInRequired) return 'sign-in'
    if (page.code === TOO_SLOW_CODE) return 'too-slow'
    // A file refused for what it is (too large, wrong type): choose another, as when the browser refuses it.
    if (UNUSABLE_FILE_STATUSES.includes(page.status)) return 'rejected'
    return 'failed'
  }
  if (tool.signInRequired && input.needsSignIn) return 'sign-in'
  return blocked ?? 'empty'
}

/** The too-slow panel's title (its text is the server's message, which names the size that fits). */
export const TOO_SLOW_TITLE = 'Too large to finish in time'

/** The phases in which a run is under way: the stage shows the progress and nothing can be changed. */
export const BUSY_PHASES: readonly WorkspacePhase[] = ['checking', 'uploading', 'processing']

/** The phases that end a run: focus moves to their panel and the live region announces it. */
export const OUTCOME_PHASES: readonly WorkspacePhase[] = ['done', 'no-face', 'failed', 'no-credits', 'over-cap', 'sign-in']

export const NO_FACE_MESSAGE = 'No faces found: nothing was blurred and you were not charged'
export const NOT_CHARGED_AFTER_FAILURE = 'You were not charged: a run that fails is refunded in full.'
export const MODEL_MISSING_TITLE = 'This tool is not installed on this server'

export interface CreditAllowances {
  guestDaily: number
  userFloor: number
  signupBonus: number
}

/** The not-enough-credits panel's sentences: the cost, the balance, when it refreshes. */
export function notEnoughCreditsText({
  cost,
  balance,
  signedIn,
  allowances,
}: {
  cost: number
  balance: number | null
  signedIn: boolean
  allowances: CreditAllowances
}): { title: string; lines: string[]; signUp: string | null } {
  const lines = [`A run costs ${formatCredits(cost)}; your balance is ${formatCredits(balance ?? 0)}.`]
  if (!signedIn) {
    lines.push(`${guestRenewalRule()}.`)
  } else if (allowances.userFloor > 0) {
    lines.push(`A balance under ${allowances.userFloor} is topped up to ${allowances.userFloor} on your first visit after midnight UTC.`)
  }
  return {
    title: 'Not enough credits',
    lines,
    signUp: signedIn ? null : `Create a free account for ${formatCredits(allowances.signupBonus)}`,
  }
}

/** What the live region says when a run ends. */
export function announcement(phase: WorkspacePhase, detail: { doneTitle: string; error: string | null }): string {
  switch (phase) {
    case 'done':
      return `${detail.doneTitle}. The result and its download are shown.`
    case 'no-face':
      return NO_FACE_MESSAGE
    case 'failed':
      return `${(detail.error ?? 'The run failed').replace(/\.$/, '')}. ${NOT_CHARGED_AFTER_FAILURE}`
    case 'no-credits':
      return detail.error ?? 'Not enough credits for this run.'
    case 'over-cap':
      return detail.error ?? 'This run would pass your monthly cap on the team.'
    case 'sign-in':
      return detail.error ?? 'Sign in to use this tool.'
    default:
      return ''
  }
}
