// A batch's fixed limits, client-safe (the documentation shows them).
/** Files in one batch at most (repeated fields, or the files of its zip). */
export const MAX_BATCH_FILES = 100
export const TOO_MANY_FILES_MESSAGE = `A batch takes at most ${MAX_BATCH_FILES} files.`
