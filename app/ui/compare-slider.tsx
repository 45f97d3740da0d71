// Before/after comparison (spec §2): a draggable divider that starts at 50, clamped 0..100, step 1.
// The divider is a native range input laid over the images, so mouse, touch (pointer events) and
// keyboard all work through the browser's own control. Without JavaScript both images show side by side.
import { useId, useState, type CSSProperties } from 'react'

export interface CompareImage {
  src: string
  alt: string
  label?: string
}

export interface CompareSliderProps {
  before: CompareImage
  after: CompareImage & { className?: string; style?: CSSProperties }
  width?: number
  height?: number
  hint?: string
  /** Eager for above-the-fold heroes; lazy otherwise. */
  loading?: 'eager' | 'lazy'
  className?: string
}

export const COMPARE_START = 50
export const COMPARE_HINT = 'Drag to compare'

export function clampPosition(value: number): number {
  if (!Number.isFinite(value)) return COMPARE_START
  return Math.min(100, Math.max(0, Math.round(value)))
}

export function CompareSlider({
  before,
  after,
  width = 800,
  height = 600,
  hint = COMPARE_HINT,
  loading = 'lazy',
  className = '',
}: CompareSliderProps) {
  const [position, setPosition] = useState(COMPARE_START)
  const hintId = useId()
  const aspect = { aspectRatio: `${width} / ${height}` }

  // Both layouts are always rendered; CSS shows the side-by-side one only when scripting is off
  // (@media (scripting: none)), so hydration never changes the size of the box: no layout shift.
  return (
    <div className={className} data-compare-root="">
      <figure className="compare-overlay m-0" data-compare="overlay">
        <div className="relative select-none overflow-hidden rounded-xl bg-slate-100" style={aspect}>
          <img
            src={before.src}
            alt={before.alt}
            width={width}
            height={height}
            loading={loading}
            decoding="async"
            draggable={false}
            className="absolute inset-0 h-full w-full object-contain"
          />
          {/* The checkerboard keeps the before image from showing through a transparent result. */}
          <div className="checkerboard absolute inset-0 overflow-hidden" style={{ clipPath: `inset(0 0 0 ${position}%)` }}>
            <img
              src={after.src}
              alt={after.alt}
              width={width}
              height={height}
              loading={loading}
              decoding="async"
              draggable={false}
              className={`absolute inset-0 h-full w-full object-contain ${after.className ?? ''}`}
              style={after.style}
            />
          </div>
          {before.label ? (
            <span className="pointer-events-none absolute left-2 top-2 rounded-full bg-slate-900/75 px-2 py-0.5 text-xs font-medium text-white">
              {before.label}
            </span>
          ) : null}
          {after.label ? (
            <span className="pointer-events-none absolute right-2 top-2 rounded-full bg-slate-900/75 px-2 py-0.5 text-xs font-medium text-white">
              {after.label}
            </span>
          ) : null}
          <div
            aria-hidden="true"
            className="pointer-events-none absolute inset-y-0 w-0.5 -translate-x-1/2 bg-white shadow-[0_0_0_1px_rgba(15,23,42,0.25)]"
            style={{ left: `${position}%` }}
          >
            <span className="absolute left-1/2 top-1/2 flex h-9 w-9 -translate-x-1/2 -translate-y-1/2 items-center justify-center rounded-full border border-slate-300 bg-white text-slate-700 shadow-md">
              ⇔
            </span>
          </div>
          <input
            type="range"
            min={0}
            max={100}
            step={1}
            value={position}
            onChange={(e) => setPosition(clampPosition(e.currentTarget.valueAsNumber))}
            onInput={(e) => setPosition(clampPosition(e.currentTarget.valueAsNumber))}
            aria-label={COMPARE_HINT}
            aria-describedby={hint === COMPARE_HINT ? undefined : hintId}
            aria-valuetext={`${position}% ${before.label ?? 'before'}, ${100 - position}% ${after.label ?? 'after'}`}
            className="compare-range absolute inset-0 h-full w-full cursor-ew-resize"
            data-testid="compare-range"
          />
        </div>
        <figcaption id={hintId} className="mt-2 text-center text-xs text-slate-500">
          {hint}
        </figcaption>
      </figure>

      <div className="compare-side-by-side grid-cols-2 gap-2" data-compare="side-by-side">
        {[before, after].map((image, i) => (
          <figure key={i} className="m-0">
            <div className={`overflow-hidden rounded-xl ${i === 1 ? 'checkerboard' : 'bg-slate-100'}`} style={aspect}>
              <img
                src={image.src}
                alt={image.alt}
                width={width}
                height={height}
                loading={loading}
                decoding="async"
                className={`h-full w-full object-contain ${i === 1 ? (after.className ?? '') : ''}`}
                style={i === 1 ? after.style : undefined}
              />
            </div>
            {image.label ? (
              <figcaption className="mt-1 text-center text-xs font-medium text-slate-600">{image.label}</figcaption>
            ) : null}
          </figure>
        ))}
      </div>
    </div>
  )
}
