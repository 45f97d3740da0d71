// What the studio keeps of your files, said once (issue 21, item 7). Every page that speaks of it (home,
// footer, privacy, terms, FAQ, meta descriptions) uses these words, and the result store uses the same
// number of hours, so the sentence cannot drift from what the code does: an upload waits encrypted with
// its job and is deleted when the run ends (decision 020); every delivered result is stored encrypted
// for its owner to download again and swept after RESULT_KEPT_HOURS (results.server.ts). Client-safe.

/** How long a delivered result is kept (encrypted, readable only by the account that made it). */
export const RESULT_KEPT_HOURS = 24

/** The one sentence about what is stored. */
export const STORAGE_SENTENCE = `Uploads are kept encrypted only until their run ends; results are kept encrypted for ${RESULT_KEPT_HOURS} hours, for you to download, then deleted.`

/** The same promise in a few words, for a headline figure. */
export const STORAGE_SHORT = {
  uploads: 'Deleted after the run',
  results: `${RESULT_KEPT_HOURS} hours, encrypted`,
} as const

/**
 * What a report that a result is wrong keeps, and for how long (decision 175): it follows the result's
 * retention, so the sentence above stays true of it. The privacy policy says it under deletion.
 */
export const REPORT_RETENTION_SENTENCE = `When you report a result as wrong, the report (your note, the result, the image it was made from where the tool keeps it for corrections, and your corrections) is kept encrypted on this studio with the result and deleted with it, ${RESULT_KEPT_HOURS} hours after its run. Only the studio's operator can see it, to test the studio's models against it; it is sent to no one else.`
