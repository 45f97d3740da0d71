// The batch screen's checks before anything is sent (client-safe, pure where it can be): each file
// through the workspace's own checks for the chosen tool (real type from its bytes, size), or one
// zip of them, counted and sniffed entry by entry where it can be read; then the batch's limits
// (file count, total size) and the balance. The server checks all of it again; these spare a
// pointless upload and say what is wrong beside the file.
import { MEGABYTE, type ToolDefinition } from '~/catalog/tools'
import { inspectFile } from '~/features/tools/ui/file-checks'
import { batchTooLargeMessage, TOO_MANY_FILES_MESSAGE, ZIP_ALONE_MESSAGE } from '../../../catalog/batches'
import { unpaidBatchMessage } from '../messages'
import { MAX_ZIP_ENTRIES } from '../zip-entries'
import { listZip } from './zip-listing'

export type ChosenFile =
  | { key: string; file: File; state: 'checking' }
  /** `runs`: the runs it makes (what it costs): 1 for an image, a zip's images, null for a zip not counted here. */
  | { key: string; file: File; state: 'ready'; zip: boolean; runs: number | null }
  | { key: string; file: File; state: 'refused'; message: string }

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]

export interface BatchLimits {
  maxFiles: number
  maxMegabytes: number
}

/** A zip with nothing in it for the tool: not sent, as a listed file of another type is not. */
export function zipWithoutFilesMessage(tool: ToolDefinition): string {
  return `The zip holds no ${tool.fileField === 'svg' ? 'SVG files' : `${tool.acceptedLabel} images`}.`
}

export type BatchFileVerdict = { ok: true; file: File; zip: boolean; runs: number | null } | { ok: false; message: string }

/**
 * A file for this tool, or a zip: its files are counted and sniffed here when the zip can be read
 * (zip-listing.ts), and a zip the server would refuse whole is refused beside it in the server's words.
 */
export async function checkBatchFile(tool: ToolDefinition, file: File, limits: BatchLimits): Promise<BatchFileVerdict> {
  const head = new Uint8Array(await file.slice(0, ZIP_MAGIC.length).arrayBuffer())
  if (ZIP_MAGIC.every((byte, i) => head[i] === byte)) {
    const zipLimits = { maxEntries: MAX_ZIP_ENTRIES, maxFiles: limits.maxFiles, maxFileBytes: tool.maxMegabytes * MEGABYTE, maxTotalBytes: limits.maxMegabytes * MEGABYTE }
    // Whatever goes wrong reading it here, the zip is still sent for the server to read.
    const listing = await listZip(file, tool, zipLimits).catch(() => null)
    if (listing?.problem) return { ok: false, message: listing.problem }
    if (listing?.runnable === 0) return { ok: false, message: zipWithoutFilesMessage(tool) }
    return { ok: true, file, zip: true, runs: listing ? listing.runnable : null }
  }
  const verdict = await inspectFile(tool, file)
  return verdict.ok ? { ok: true, file: verdict.file, zip: false, runs: 1 } : verdict
}

export interface BatchTotals {
  /** Files that will be sent (a zip is one). */
  chosen: number
  /** Runs the batch makes, what it costs: null when a zip could not be counted here (the server counts it). */
  count: number | null
  bytes: number
  zip: boolean
}

export function totalsOf(files: readonly ChosenFile[]): BatchTotals {
  const ready = files.filter((f): f is Extract<ChosenFile, { state: 'ready' }> => f.state === 'ready')
  return {
    chosen: ready.length,
    count: ready.reduce<number | null>((sum, f) => (sum === null || f.runs === null ? null : sum + f.runs), 0),
    bytes: ready.reduce((sum, f) => sum + f.file.size, 0),
    zip: ready.some((f) => f.zip),
  }
}

/**
 * Why the batch cannot be sent as it is, or null. A zip's own limits were checked when it was
 * chosen; one that could not be counted here is priced by the server, which checks the balance then.
 */
export function batchProblem(totals: BatchTotals, limits: BatchLimits, cost: number, balance: number | null): string | null {
  if (totals.zip && totals.chosen > 1) return ZIP_ALONE_MESSAGE
  if (totals.chosen > limits.maxFiles) return TOO_MANY_FILES_MESSAGE
  if (totals.bytes > limits.maxMegabytes * MEGABYTE) return batchTooLargeMessage(limits.maxMegabytes)
  if (totals.count !== null && balance !== null && totals.count * cost > balance) return unpaidBatchMessage(totals.count, cost, balance)
  return null
}
