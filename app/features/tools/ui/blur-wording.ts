// The face blurrer's tile wording (spec §2) and slider display rule (§9).
import { BLUR } from '~/catalog/tools'

export function facesDetectedText(faces: number | null | undefined): string {
  if (faces === null || faces === undefined) return 'Pending'
  return faces === 1 ? '1 face' : `${faces} faces`
}

export function sourceText(hasFile: boolean): string {
  return hasFile ? 'Live upload' : 'No image yet'
}

export function blurRadiusText(radius: number, state: 'applied' | 'preview' | 'none'): string {
  if (state === 'none') return '—'
  return `${displayBlur(radius)}px ${state}`
}

/** The slider's value as shown: never below the display minimum. */
export function displayBlur(value: number): number {
  return Math.max(BLUR.displayMin, value)
}

/** A submitted blur value snapped to the slider's range and step, or the default. */
export function normaliseBlur(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value)
  if (!Number.isFinite(n)) return BLUR.default
  const clamped = Math.min(BLUR.max, Math.max(BLUR.min, n))
  return BLUR.min + Math.round((clamped - BLUR.min) / BLUR.step) * BLUR.step
}
