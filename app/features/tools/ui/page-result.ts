// What a tool page's action returns to the page when the form was posted without JavaScript.
// Client-safe: types and small readers only.
import type { JobView } from '~/features/tools/jobs/view'

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
export const TOO_SLOW_CODE = 'image_too_slow'

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

export function resultUrl(resultId: string): string {
  return `/api/results/${encodeURIComponent(resultId)}`
}

/** A result's small picture (features/history/thumbnails.server.ts), for its owner while it lasts. */
export function thumbnailUrl(resultId: string): string {
  return `${resultUrl(resultId)}/thumbnail`
}

export function downloadUrl(resultId: string): string {
  return `${resultUrl(resultId)}?download=1`
}

/** The badge after a page post: the posted run's outcome until the browser starts a run of its own. */
export function shownStatus<S extends string>(status: S, page: ToolPageResult | undefined): S | 'complete' | 'error' {
  if (status !== 'idle' || !page) return status
  return page.ok ? 'complete' : 'error'
}

/** How often a page following a job reloads itself without JavaScript. */
export const JOB_REFRESH_SECONDS = 1

/** The meta tag that makes a page following an unfinished job reload itself (no JavaScript needed). */
export function jobRefreshMeta(job: JobView | null | undefined) {
  return job && (job.status === 'queued' || job.status === 'running')
    ? [{ httpEquiv: 'refresh', content: String(JOB_REFRESH_SECONDS) }]
    : []
}
