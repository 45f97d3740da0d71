// What a tool page's action returns to the page when the form was posted without JavaScript.
// Client-safe: types and small readers only.
import { jobHasEnded, resultUrl, TOO_SLOW_CODE, type JobView } from '~/features/jobs/view'

export type ToolPageResult =
  | {
      ok: true
      /** Owner-only URL of the stored result image. */
      resultUrl: string
      downloadUrl: string
      filename: string
      contentType: string
      remaining: number
      facesFound?: number
      gfpganAvailable?: boolean
      /** What the run told the caller (X-Facet-Note): the restorer's engine, a first frame used. */
      note?: string
      /** The model that made the result (X-Facet-Model). */
      model?: string
      fieldValues?: Record<string, string>
    }
  | {
      ok: false
      status: number
      error: string
      /** What kind of refusal, where the page words it apart (an image too slow to finish in time). */
      code?: typeof TOO_SLOW_CODE
      remaining: number | null
      gfpganAvailable?: boolean
      fieldValues?: Record<string, string>
    }

/** The refusal of an image too slow to finish in time: the API's `code` and the page's. */

/** What a tool page's loader tells the browser to estimate runs with (run-time.ts). */
export interface PageTiming {
  /** This server's measured speed per variant (a variant not measured yet runs at its seed). */
  factors: Record<string, number>
  limitMs: number
  /** The server's clock when the page was drawn: the first render counts from it on both sides. */
  renderedAt: number
}

/** A run's start (epoch ms) and expected length: the progress panel shows elapsed time and time left from them. */
export interface RunClock {
  startedAt: number
  estimateMs: number | null
}

/** The run options a result page shows back (they ride in its address after the redirect). */
export const SHOWN_OPTION_FIELDS = ['blur', 'format', 'scale', 'background', 'denoise', 'model'] as const


/** A result's small picture (features/history/thumbnails.server.ts), for its owner while it lasts. */
export function thumbnailUrl(resultId: string): string {
  return `${resultUrl(resultId)}/thumbnail`
}

export function downloadUrl(resultId: string): string {
  return `${resultUrl(resultId)}?download=1`
}

/**
 * Where a result is shown, opened in full and downloaded, from its address (a job's result_url, a page
 * result's resultUrl): the before/after shows its small preview (at most 800 px, decision 179), the full
 * resolution only on demand.
 */
export interface ResultAddresses {
  preview: string
  full: string
  download: string
}

export function resultAddresses(url: string): ResultAddresses {
  const path = url.split('?')[0]!
  return { preview: `${path}/preview`, full: path, download: `${path}?download=1` }
}

/** The badge after a page post: the posted run's outcome until the browser starts a run of its own. */
export function shownStatus<S extends string>(status: S, page: ToolPageResult | undefined): S | 'complete' | 'error' {
  if (status !== 'idle' || !page) return status
  return page.ok ? 'complete' : 'error'
}

/** How often a page following a job reloads itself without JavaScript. */
export const JOB_REFRESH_SECONDS = 1

/**
 * Whether a page opened on this job reloads itself without JavaScript: while the job waits or runs. The
 * reload is inside <noscript> (workspace.tsx): with JavaScript the page follows the job itself, and a page
 * whose scripts are still arriving on a slow link (a run tapped before they loaded) is not reloaded under
 * them every second, each time fetching the page again (decision 183).
 */
export function reloadsWhileRunning(job: JobView | null | undefined): boolean {
  return Boolean(job && !jobHasEnded(job.status))
}
