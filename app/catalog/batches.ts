// A batch's fixed limits and the refusals that name them, client-safe: the batch screen checks them
// before sending, the server checks them again, and the documentation shows them.
import { formatCredits } from '~/utils/credits-word'
/** Files in one batch at most (repeated fields, or the files of its zip). */
export const MAX_BATCH_FILES = 100
export const TOO_MANY_FILES_MESSAGE = `A batch takes at most ${MAX_BATCH_FILES} files.`
export const ZIP_ALONE_MESSAGE = 'Send either files or one zip of them, not both.'

/** The whole upload over BATCH_MAX_MEGABYTES (a setting: the server passes its value). */
export function batchTooLargeMessage(maxMegabytes: number): string {
  return `The batch is too large (max ${maxMegabytes}MB in all).`
}

/**
 * The balance check before anything runs: how many of the batch's items the balance pays for.
 * "the balance", not "your": the paying account may be a team's.
 */
export function unpaidBatchMessage(items: number, cost: number, balance: number): string {
  const covered = Math.floor(balance / cost)
  return `Not enough credits: this batch of ${items} files costs ${formatCredits(items * cost)} and the balance of ${balance} covers ${covered} of them.`
}
