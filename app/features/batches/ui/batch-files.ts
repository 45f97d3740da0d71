// The batch screen's checks before anything is sent (client-safe, pure where it can be): each file
// through the workspace's own checks for the chosen tool (real type from its bytes, size), or one
// zip of images; then the batch's limits (file count, total size) and the balance. The server checks
// all of it again; these spare a pointless upload and say what is wrong beside the file.
import { MEGABYTE, type ToolDefinition } from '~/catalog/tools'
import { inspectFile } from '~/features/tools/ui/file-checks'
import { batchTooLargeMessage, TOO_MANY_FILES_MESSAGE, unpaidBatchMessage } from '../../../catalog/batches'

export type ChosenFile =
  | { key: string; file: File; state: 'checking' }
  | { key: string; file: File; state: 'ready'; zip: boolean }
  | { key: string; file: File; state: 'refused'; message: string }

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]

export const ZIP_ALONE_MESSAGE = 'Send either files or one zip of them, not both.'

/** A file for this tool, or a zip (its images are checked by the server). */
export async function checkBatchFile(tool: ToolDefinition, file: File): Promise<{ ok: true; file: File; zip: boolean } | { ok: false; message: string }> {
  const head = new Uint8Array(await file.slice(0, ZIP_MAGIC.length).arrayBuffer())
  if (ZIP_MAGIC.every((byte, i) => head[i] === byte)) return { ok: true, file, zip: true }
  const verdict = await inspectFile(tool, file)
  return verdict.ok ? { ok: true, file: verdict.file, zip: false } : verdict
}

export interface BatchTotals {
  /** Files that will be sent. */
  count: number
  bytes: number
  zip: boolean
}

export function totalsOf(files: readonly ChosenFile[]): BatchTotals {
  const ready = files.filter((f): f is Extract<ChosenFile, { state: 'ready' }> => f.state === 'ready')
  return { count: ready.length, bytes: ready.reduce((sum, f) => sum + f.file.size, 0), zip: ready.some((f) => f.zip) }
}

/**
 * Why the batch cannot be sent as it is, or null. The balance is checked for plain files only: a
 * zip's count is known once the server opens it (and checks it the same way).
 */
export function batchProblem(
  totals: BatchTotals,
  limits: { maxFiles: number; maxMegabytes: number },
  cost: number,
  balance: number | null,
): string | null {
  if (totals.zip && totals.count > 1) return ZIP_ALONE_MESSAGE
  if (totals.count > limits.maxFiles) return TOO_MANY_FILES_MESSAGE
  if (totals.bytes > limits.maxMegabytes * MEGABYTE) return batchTooLargeMessage(limits.maxMegabytes)
  if (!totals.zip && balance !== null && totals.count * cost > balance) return unpaidBatchMessage(totals.count, cost, balance)
  return null
}
