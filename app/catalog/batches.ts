// A batch's fixed limits and the refusals that name them, client-safe: the batch screen checks them
// before sending, the server checks them again, and the documentation shows them.
/** Files in one batch at most (repeated fields, or the files of its zip). */
export const MAX_BATCH_FILES = 100
export const TOO_MANY_FILES_MESSAGE = `A batch takes at most ${MAX_BATCH_FILES} files.`
export const ZIP_ALONE_MESSAGE = 'Send either files or one zip of them, not both.'

/** The whole upload over BATCH_MAX_MEGABYTES (a setting: the server passes its value). */
export function batchTooLargeMessage(maxMegabytes: number): string {
  return `The batch is too large (max ${maxMegabytes}MB in all).`
}
