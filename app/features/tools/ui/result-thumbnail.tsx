// A result's thumbnail (at most 160 pixels on a side, made by the server: never the full-size result
// scaled down by the browser), on a checkerboard so a cut-out's transparency shows; a plain tile
// with the run's state while there is no result.
import type { RunState } from '../../jobs/run-state'

const TILE_WORDS: Record<RunState, string> = { waiting: 'Waiting', running: 'Running', done: 'No preview', no_face: 'No preview', failed: 'Failed' }

export function ResultThumbnail({ src, state, className = 'aspect-square w-full' }: { src: string | null; state: RunState; className?: string }) {
  if (!src) {
    return (
      <span
        aria-hidden="true"
        className={`${className} flex items-center justify-center rounded-lg bg-slate-100 text-xs font-medium ${state === 'failed' ? 'text-red-800' : 'text-slate-600'}`}
      >
        {TILE_WORDS[state]}
      </span>
    )
  }
  return (
    <img
      src={src}
      alt=""
      width={160}
      height={160}
      loading="lazy"
      decoding="async"
      className={`${className} rounded-lg bg-[length:16px_16px] bg-[position:0_0,8px_8px] object-contain [background-image:linear-gradient(45deg,#e2e8f0_25%,transparent_25%,transparent_75%,#e2e8f0_75%),linear-gradient(45deg,#e2e8f0_25%,transparent_25%,transparent_75%,#e2e8f0_75%)]`}
    />
  )
}
