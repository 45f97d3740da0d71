// The command's exit codes, for scripts: one per kind of outcome, the same for every command.
import { FacetConnectionError, FacetError } from '@facet-studio/sdk'

export const EXIT = {
  /** Every file was processed and written (or the balance was printed). */
  ok: 0,
  /** The command line was wrong: an unknown option, no file, no key, a file that does not exist. */
  usage: 1,
  /** The studio refused the request (a 4xx: bad image, not enough credits, invalid key...). */
  refused: 2,
  /** The studio failed or is busy (a 5xx), or could not be reached. */
  failed: 3,
  /** A batch ended with some files failed: the others were written. */
  partial: 4,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** A mistake on the command line (exit 1), with the words to print. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError) return EXIT.usage
  if (error instanceof FacetError) return error.refused ? EXIT.refused : EXIT.failed
  if (error instanceof FacetConnectionError) return EXIT.failed
  return EXIT.failed
}

/** The line printed for an error: the studio's own message, with its status. */
export function errorLine(error: unknown): string {
  if (error instanceof FacetError) {
    const wait = error.retryAfter !== null ? ` (try again in ${error.retryAfter} s)` : ''
    return `facet: the studio answered ${error.status}: ${error.message}${wait}`
  }
  return `facet: ${(error as Error)?.message ?? String(error)}`
}
