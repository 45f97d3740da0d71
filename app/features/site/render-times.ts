// Real render times, as the home page states them. Client-safe.
export interface RenderTimes {
  runs: number
  medianMs: number
}

export const RENDER_WINDOW_DAYS = 30

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`
}
