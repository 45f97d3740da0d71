// How long a run will take, before it starts (client-safe: the tool pages and the server share it).
// Each tool has a seed cost in milliseconds for an image of a given size, shaped by what the tool
// really does with its pixels (the enhancer's model sees at most 1 MP; the remover and blurrer run
// their models at a fixed size and work the rest at full size); the measured speed of this server,
// per tool and model, multiplies it (run-rates.server.ts keeps that factor up to date from every
// delivered run). A run whose estimate does not fit in the time limit is refused before it is
// uploaded (pages with JavaScript) or before it is charged (no JavaScript, API), with the largest
// size that fits (docs/decisions/132).
import type { ToolSlug } from '~/catalog/tools'

/** The share of the time limit an estimate may use: the rest is room for the estimate being wrong. */
export const LIMIT_SHARE = 0.8
/** The smallest picture the downscale offer goes to (its shorter side, in pixels). */
export const MIN_DOWNSCALE_SIDE = 64
/** A run expected to take longer than this can be left: the page says so and, for accounts, a mail follows. */
export const LEAVE_PAGE_AFTER_MS = 60_000

/** Seed costs: milliseconds on an idle two-core machine (docs/decisions/011, 013 and 037). */
interface Seed {
  fixedMs: number
  /** Per megapixel of the input as uploaded. */
  perInputMp: number
  /** Per megapixel the tool's model sees (only where it differs from the input). */
  perModelMp?: number
  /** Per megapixel of the output (where it differs from the input). */
  perOutputMp?: number
}

const SEEDS: Partial<Record<ToolSlug, Seed>> = {
  'background-remover': { fixedMs: 900, perInputMp: 250 },
  'face-blurrer': { fixedMs: 400, perInputMp: 170 },
  'face-restorer': { fixedMs: 3_000, perInputMp: 250 },
  // Real-ESRGAN x4v3: about 20 µs per pixel it sees (capped at 1 MP), then the output is resampled and encoded.
  'image-enhancer': { fixedMs: 1_500, perInputMp: 60, perModelMp: 20_000, perOutputMp: 120 },
}

/** The seed speed of a variant whose model is slower than the tool's seed (the remover's quality model). */
const SEED_FACTORS: Record<string, number> = { 'background-remover:quality': 4, 'background-remover:portrait': 1.5 }

export function seedFactor(tool: ToolSlug, variant: string): number {
  return SEED_FACTORS[`${tool}:${variant}`] ?? 1
}

/** The image enhancer's budget and cap (image-enhancer.server.ts keeps the same numbers; a test checks). */
export const ENHANCER_MODEL_BUDGET = 1_000_000
export const ENHANCER_OUTPUT_CAP = 16_000_000

/** Whether the tool's run time is estimated (the SVG converter has a render limit of its own). */
export function isEstimated(tool: ToolSlug): boolean {
  return SEEDS[tool] !== undefined
}

/** What a page needs to estimate runs of one tool: the seed is in this module, the speed from the server. */
export interface RunTiming {
  tool: ToolSlug
  /** This server's measured speed: 1 is the seed, 2 is twice as slow. */
  factor: number
  /** The tool's time limit (TOOL_TIMEOUT_MS). */
  limitMs: number
}

/** Milliseconds of the seed for an image of width × height. */
export function seedMs(tool: ToolSlug, width: number, height: number): number {
  const seed = SEEDS[tool]
  if (!seed) return 0
  const pixels = Math.max(1, width) * Math.max(1, height)
  const mp = pixels / 1_000_000
  let modelMp = mp
  let outputMp = mp
  if (tool === 'image-enhancer') {
    modelMp = Math.min(pixels, ENHANCER_MODEL_BUDGET) / 1_000_000
    const scale = [4, 3, 2].find((s) => pixels * s * s <= ENHANCER_OUTPUT_CAP) ?? 1
    outputMp = (pixels * scale * scale) / 1_000_000
  }
  return seed.fixedMs + seed.perInputMp * mp + (seed.perModelMp ?? 0) * modelMp + (seed.perOutputMp ?? 0) * outputMp
}

/** The run's expected time on this server, in milliseconds (null: not estimated for this tool). */
export function estimateMs(timing: RunTiming, width: number, height: number): number | null {
  if (!isEstimated(timing.tool)) return null
  return Math.round(seedMs(timing.tool, width, height) * timing.factor)
}

export type Fit =
  | { fits: true; estimateMs: number | null }
  /** Too big: `largest` is the largest size of the same shape that fits, or null when none does (the server is too slow now). */
  | { fits: false; estimateMs: number; largest: { width: number; height: number } | null }

/** Whether a run of this size fits in the time limit, and if not the largest size that does. */
export function checkFit(timing: RunTiming, width: number, height: number): Fit {
  const estimate = estimateMs(timing, width, height)
  const budget = timing.limitMs * LIMIT_SHARE
  if (estimate === null || estimate <= budget) return { fits: true, estimateMs: estimate }
  const fitsAt = (scale: number) => (estimateMs(timing, Math.floor(width * scale), Math.floor(height * scale)) ?? 0) <= budget
  const minScale = Math.min(1, MIN_DOWNSCALE_SIDE / Math.max(1, Math.min(width, height)))
  if (!fitsAt(minScale)) return { fits: false, estimateMs: estimate, largest: null }
  // The cost rises with the scale: bisect for the largest scale that fits.
  let low = minScale
  let high = 1
  for (let i = 0; i < 40 && high - low > 1e-4; i++) {
    const mid = (low + high) / 2
    if (fitsAt(mid)) low = mid
    else high = mid
  }
  return { fits: false, estimateMs: estimate, largest: { width: Math.floor(width * low), height: Math.floor(height * low) } }
}

/** '45 s', '2 min', '1 min 30 s': a duration as a person reads it. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  const rest = seconds % 60
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`
}

/** The refusal of an image too large to finish in time, with the size that would (the same words on the page and in the API). */
export function tooSlowMessage(fit: Extract<Fit, { fits: false }>, width: number, height: number, limitMs: number): string {
  const opening = `This image (${width} × ${height}) would take about ${formatDuration(fit.estimateMs)} here, longer than the ${formatDuration(limitMs)} a run may take.`
  if (!fit.largest) return `${opening} The studio is too busy to finish it in time now: try again in a few minutes.`
  return `${opening} Downscale it to ${fit.largest.width} × ${fit.largest.height} or smaller and try again. Nothing was charged.`
}

/** Which measured speed a run uses: the remover's is per model choice (they differ tenfold), the other tools have one. */
export function rateVariant(tool: ToolSlug, options: unknown): string {
  if (tool !== 'background-remover') return ''
  const model = options && typeof options === 'object' ? (options as { model?: unknown }).model : undefined
  return typeof model === 'string' && model ? model : 'auto'
}
