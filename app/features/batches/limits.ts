// A batch's fixed limits, client-safe (the documentation shows them).
/** Files in one batch at most (repeated fields, or the files of its zip). */
export const MAX_BATCH_FILES = 100
