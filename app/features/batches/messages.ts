// The batch refusal that counts credits, client-safe: the batch screen checks it before sending, the
// server again. Not in catalog/batches.ts: the catalog is the house's bottom and imports nothing, and the
// credit words are in utils (decision 170).
import { formatCredits } from '~/utils/credits-word'

/**
 * The balance check before anything runs: how many of the batch's items the balance pays for.
 * "the balance", not "your": the paying account may be a team's.
 */
export function unpaidBatchMessage(items: number, cost: number, balance: number): string {
  const covered = Math.floor(balance / cost)
  return `Not enough credits: this batch of ${items} files costs ${formatCredits(items * cost)} and the balance of ${balance} covers ${covered} of them.`
}
