// Which entries of a batch's zip are its files: one rule, for the server that reads the zip
// (zip.server.ts) and for the batch screen that counts it before the upload (ui/zip-listing.ts).
// Client-safe: no Node module.

/**
 * A zip entry that is not one of the batch's files, and why: a folder (its files are read on their
 * own), or a hidden file (a dot file, or anything under __MACOSX/: what archivers add, never a photo
 * someone chose). Skipped entries are listed in the batch's answer, never dropped silently.
 */
export interface SkippedEntry {
  name: string
  reason: 'folder' | 'hidden'
}

/** Why the entry of this name is skipped, or null: it is one of the batch's files. */
export function skipReason(entryName: string): SkippedEntry['reason'] | null {
  if (entryName.endsWith('/')) return 'folder'
  return entryName.split('/').some((part) => part.startsWith('.') || part === '__MACOSX') ? 'hidden' : null
}

/** An entry's base name: what the batch calls the file, whatever folders the zip put it in. */
export function entryBaseName(entryName: string): string {
  return entryName.replaceAll('\\', '/').split('/').pop() ?? ''
}

/** One entry, once inflated, is past the tool's size limit for one file (the whole zip is refused, 413). */
export function entryTooLargeMessage(entryName: string): string {
  return `${entryBaseName(entryName)} is too large once unzipped.`
}

/** Entries of any kind (folders and skipped files too) a batch zip may have: more is refused whole (400). */
export const MAX_ZIP_ENTRIES = 1_000

export function tooManyEntriesMessage(maxEntries: number): string {
  return `The zip has too many entries (at most ${maxEntries}).`
}

/** The zip's files, once inflated, are past the batch's size limit in all (413). */
export const ZIP_TOO_LARGE_MESSAGE = 'The zip is too large once unzipped.'
