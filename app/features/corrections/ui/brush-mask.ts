// The brush editor's mask, without the DOM: one byte per preview pixel, where 128 leaves the model's
// matte as it is, 255 restores the photo fully and 0 removes it (what the server reads, decision 158).
// A stroke is painted into a coverage buffer of its own (the most any of its dabs covered each pixel),
// and each pixel is the stroke's start value moved towards the target by that coverage: a soft brush
// gives the same edge however fast the pointer moved (dab spacing never darkens it), and undo is the
// stroke's box put back. Everything here is plain arithmetic on typed arrays, cheap enough to run on
// each pointer move: a move costs the pixels its dabs touch, never the whole picture.
import { blendMask, MASK_NEUTRAL } from '../alpha-rules'

export const MASK_LEAVE = MASK_NEUTRAL
export const MASK_RESTORE = 255
export const MASK_REMOVE = 0

export type BrushMode = 'erase' | 'restore'

export interface Brush {
  mode: BrushMode
  /** Diameter in preview pixels. */
  size: number
  /** 0..1: 1 is a hard edge, 0 fades from the centre out. */
  hardness: number
}

export const BRUSH_SIZE = { min: 2, max: 200, default: 40, step: 4 } as const
export const BRUSH_HARDNESS = { min: 0, max: 1, default: 0.7, step: 0.05 } as const
/** Strokes kept for undo: each holds only its own box, so a long session stays small. */
export const UNDO_LIMIT = 50

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export function clampBrushSize(size: number): number {
  if (!Number.isFinite(size)) return BRUSH_SIZE.default
  return Math.min(BRUSH_SIZE.max, Math.max(BRUSH_SIZE.min, Math.round(size)))
}

export function clampHardness(hardness: number): number {
  if (!Number.isFinite(hardness)) return BRUSH_HARDNESS.default
  return Math.min(BRUSH_HARDNESS.max, Math.max(BRUSH_HARDNESS.min, hardness))
}

/**
 * How much a dab covers a pixel at `distance` from its centre: 1 inside the hard core (hardness ×
 * radius), then a smooth fall to 0 at the radius. A pixel's centre is sampled, so a 1 px brush still
 * paints.
 */
export function dabCoverage(distance: number, radius: number, hardness: number): number {
  if (distance >= radius) return 0
  const core = radius * clampHardness(hardness)
  if (distance <= core) return 1
  const t = (distance - core) / (radius - core)
  // smoothstep from 1 to 0: no visible ring where the core ends.
  return 1 - t * t * (3 - 2 * t)
}

export function targetOf(mode: BrushMode): number {
  return mode === 'erase' ? MASK_REMOVE : MASK_RESTORE
}

/** The union of two boxes (either may be empty). */
export function unionRect(a: Rect | null, b: Rect | null): Rect | null {
  if (!a || a.width <= 0 || a.height <= 0) return b && b.width > 0 && b.height > 0 ? b : null
  if (!b || b.width <= 0 || b.height <= 0) return a
  const x = Math.min(a.x, b.x)
  const y = Math.min(a.y, b.y)
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y }
}

function clipRect(r: Rect, width: number, height: number): Rect | null {
  const x0 = Math.max(0, Math.floor(r.x))
  const y0 = Math.max(0, Math.floor(r.y))
  const x1 = Math.min(width, Math.ceil(r.x + r.width))
  const y1 = Math.min(height, Math.ceil(r.y + r.height))
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null
}

interface StrokeRecord {
  rect: Rect
  before: Uint8Array
  after: Uint8Array
}

function copyRect(source: Uint8Array, width: number, rect: Rect): Uint8Array {
  const out = new Uint8Array(rect.width * rect.height)
  for (let row = 0; row < rect.height; row++) {
    const start = (rect.y + row) * width + rect.x
    out.set(source.subarray(start, start + rect.width), row * rect.width)
  }
  return out
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function pasteRect(target: Uint8Array, width: number, rect: Rect, bytes: Uint8Array): void {
  for (let row = 0; row < rect.height; row++) {
    target.set(bytes.subarray(row * rect.width, (row + 1) * rect.width), (rect.y + row) * width + rect.x)
  }
}

/** The mask being edited, with its strokes' history. */
export class BrushMask {
  readonly width: number
  readonly height: number
  /** The current mask, row by row. */
  readonly values: Uint8Array
  /** The mask as the stroke under way found it, and how much the stroke covers each pixel (0..1). */
  private base: Uint8Array | null = null
  /** The buffer `base` is copied into at each stroke's start (one for the mask's life, not one a stroke). */
  private baseBuffer: Uint8Array
  private coverage: Float32Array
  private stroke: { brush: Brush; last: { x: number; y: number } | null; rect: Rect | null } | null = null
  private table: { key: string; values: Float32Array } | null = null
  private done: StrokeRecord[] = []
  private undone: StrokeRecord[] = []

  constructor(width: number, height: number, initial?: Uint8Array) {
    if (!(width > 0 && height > 0)) throw new RangeError('A mask needs a size')
    this.width = width
    this.height = height
    this.values = new Uint8Array(width * height).fill(MASK_LEAVE)
    if (initial) {
      if (initial.length !== width * height) throw new RangeError('The stored mask is not the preview size')
      this.values.set(initial)
    }
    this.coverage = new Float32Array(width * height)
    this.baseBuffer = new Uint8Array(width * height)
  }

  get canUndo(): boolean {
    return this.done.length > 0
  }

  get canRedo(): boolean {
    return this.undone.length > 0
  }

  /** Whether any pixel differs from "leave" (an untouched mask need not be sent). */
  get touched(): boolean {
    return this.values.some((v) => v !== MASK_LEAVE)
  }

  get drawing(): boolean {
    return this.stroke !== null
  }

  /** Starts a stroke with a dab at (x, y). Returns the box that changed. */
  begin(brush: Brush, x: number, y: number): Rect | null {
    if (this.stroke) this.end()
    this.baseBuffer.set(this.values)
    this.base = this.baseBuffer
    this.stroke = { brush: { ...brush, size: clampBrushSize(brush.size), hardness: clampHardness(brush.hardness) }, last: null, rect: null }
    return this.to(x, y)
  }

  /** Paints the segment from the stroke's last point to (x, y): dabs a quarter of the brush apart. */
  to(x: number, y: number): Rect | null {
    const stroke = this.stroke
    if (!stroke) return null
    const radius = stroke.brush.size / 2
    let changed: Rect | null = null
    if (!stroke.last) {
      changed = this.dab(x, y, radius, stroke.brush)
    } else {
      // The segment's start was dabbed by the move before.
      const from = stroke.last
      const spacing = Math.max(0.5, radius / 4)
      const steps = Math.max(1, Math.ceil(Math.hypot(x - from.x, y - from.y) / spacing))
      for (let i = 1; i <= steps; i++) {
        const t = i / steps
        changed = unionRect(changed, this.dab(from.x + (x - from.x) * t, from.y + (y - from.y) * t, radius, stroke.brush))
      }
    }
    stroke.last = { x, y }
    stroke.rect = unionRect(stroke.rect, changed)
    return changed
  }

  /** Ends the stroke and records it for undo. */
  end(): void {
    const stroke = this.stroke
    const base = this.base
    this.stroke = null
    this.base = null
    if (!stroke?.rect || !base) return
    const rect = stroke.rect
    // The coverage buffer is cleared only where this stroke wrote.
    for (let row = rect.y; row < rect.y + rect.height; row++) this.coverage.fill(0, row * this.width + rect.x, row * this.width + rect.x + rect.width)
    const before = copyRect(base, this.width, rect)
    const after = copyRect(this.values, this.width, rect)
    if (sameBytes(before, after)) return
    this.done.push({ rect, before, after })
    if (this.done.length > UNDO_LIMIT) this.done.shift()
    this.undone = []
  }

  /** Takes back the last stroke; returns the box to redraw. */
  undo(): Rect | null {
    if (this.stroke) this.end()
    const record = this.done.pop()
    if (!record) return null
    pasteRect(this.values, this.width, record.rect, record.before)
    this.undone.push(record)
    return record.rect
  }

  redo(): Rect | null {
    if (this.stroke) this.end()
    const record = this.undone.pop()
    if (!record) return null
    pasteRect(this.values, this.width, record.rect, record.after)
    this.done.push(record)
    return record.rect
  }

  /** Back to "leave" everywhere, as one undoable step. */
  clear(): Rect | null {
    if (this.stroke) this.end()
    const rect = { x: 0, y: 0, width: this.width, height: this.height }
    const before = this.values.slice()
    if (!before.some((v) => v !== MASK_LEAVE)) return null
    this.values.fill(MASK_LEAVE)
    this.done.push({ rect, before, after: this.values.slice() })
    if (this.done.length > UNDO_LIMIT) this.done.shift()
    this.undone = []
    return rect
  }

  private dab(cx: number, cy: number, radius: number, brush: Brush): Rect | null {
    const rect = clipRect({ x: cx - radius, y: cy - radius, width: radius * 2, height: radius * 2 }, this.width, this.height)
    if (!rect) return null
    const base = this.base!
    const coverage = this.coverage
    const values = this.values
    const target = targetOf(brush.mode)
    const table = this.coverageTable(radius, brush.hardness)
    const radiusSquared = radius * radius
    for (let py = rect.y; py < rect.y + rect.height; py++) {
      const dy = py + 0.5 - cy
      const row = py * this.width
      for (let px = rect.x; px < rect.x + rect.width; px++) {
        const dx = px + 0.5 - cx
        const squared = dx * dx + dy * dy
        if (squared >= radiusSquared) continue
        const cover = table[(squared * COVERAGE_STEPS_PER_PX2) | 0]!
        const i = row + px
        if (cover <= coverage[i]!) continue
        coverage[i] = cover
        values[i] = Math.round(base[i]! + (target - base[i]!) * cover)
      }
    }
    return rect
  }

  /** dabCoverage by squared distance, computed once per brush: a pointer move does no square roots. */
  private coverageTable(radius: number, hardness: number): Float32Array {
    const key = `${radius}:${hardness}`
    if (this.table?.key === key) return this.table.values
    const values = new Float32Array(Math.ceil(radius * radius * COVERAGE_STEPS_PER_PX2) + 1)
    for (let i = 0; i < values.length; i++) values[i] = dabCoverage(Math.sqrt((i + 0.5) / COVERAGE_STEPS_PER_PX2), radius, hardness)
    this.table = { key, values }
    return values
  }
}

/** The coverage table's resolution: 4 entries per square pixel of distance. */
const COVERAGE_STEPS_PER_PX2 = 4

/** A stored mask image's pixels (RGBA, as a canvas reads them) as mask values: its red channel. */
export function maskFromRgba(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height)
  for (let i = 0; i < out.length; i++) out[i] = rgba[i * 4]!
  return out
}

/** The mask as opaque grey RGBA pixels (r = g = b = the value), for a canvas to encode as PNG. */
export function maskToRgba(values: Uint8Array): Uint8ClampedArray<ArrayBuffer> {
  const out = new Uint8ClampedArray(values.length * 4)
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    out[i * 4] = v
    out[i * 4 + 1] = v
    out[i * 4 + 2] = v
    out[i * 4 + 3] = 255
  }
  return out
}

export type AlphaView = 'cutout' | 'overlay'

/** composeRect's two working buffers, grown when a box needs more, never given back. */
const scratchBuffers: [Uint8Array, Uint8Array] = [new Uint8Array(0), new Uint8Array(0)]

function scratch(which: 0 | 1, length: number): Uint8Array {
  if (scratchBuffers[which].length < length) scratchBuffers[which] = new Uint8Array(Math.max(length, scratchBuffers[which].length * 2))
  return scratchBuffers[which].subarray(0, length)
}

/** The tint laid over what is removed in the overlay view (a retoucher's red "quick mask"). */
export const OVERLAY_TINT = [220, 38, 38] as const
const OVERLAY_STRENGTH = 0.55

/**
 * Writes the preview of `rect` into `out` (RGBA at the preview size): the photo with the masked alpha
 * (cutout view, drawn over a checkerboard), or the photo opaque with what is removed tinted (overlay).
 */
export function composeRect(
  out: Uint8ClampedArray,
  photo: Uint8ClampedArray,
  matte: Uint8Array,
  mask: Uint8Array,
  width: number,
  rect: Rect,
  view: AlphaView,
): void {
  // The alpha the server will make (decision 157's blendMask), for the box's pixels only, in
  // buffers kept from frame to frame: a new pair each frame was garbage that the page's collector
  // then stopped a stroke to sweep (decision 182).
  const alpha = scratch(0, rect.width * rect.height)
  const strokes = scratch(1, rect.width * rect.height)
  for (let row = 0; row < rect.height; row++) {
    const start = (rect.y + row) * width + rect.x
    alpha.set(matte.subarray(start, start + rect.width), row * rect.width)
    strokes.set(mask.subarray(start, start + rect.width), row * rect.width)
  }
  blendMask(alpha, rect.width, { data: strokes, box: { x: 0, y: 0, width: rect.width, height: rect.height } })
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const o = (y * width + x) * 4
      const a = alpha[(y - rect.y) * rect.width + (x - rect.x)]!
      if (view === 'cutout') {
        out[o] = photo[o]!
        out[o + 1] = photo[o + 1]!
        out[o + 2] = photo[o + 2]!
        out[o + 3] = a
      } else {
        const tint = ((255 - a) / 255) * OVERLAY_STRENGTH
        out[o] = photo[o]! + (OVERLAY_TINT[0] - photo[o]!) * tint
        out[o + 1] = photo[o + 1]! + (OVERLAY_TINT[1] - photo[o + 1]!) * tint
        out[o + 2] = photo[o + 2]! + (OVERLAY_TINT[2] - photo[o + 2]!) * tint
        out[o + 3] = 255
      }
    }
  }
}

/**
 * Runs a short stroke on a small mask, so the browser compiles the brush's loops before the first
 * real stroke (in the interpreter the first dabs and frame cost tens of milliseconds).
 */
export function warmUpBrush(): void {
  const size = 96
  const mask = new BrushMask(size, size)
  const out = new Uint8ClampedArray(size * size * 4)
  const photo = new Uint8ClampedArray(size * size * 4)
  const matte = new Uint8Array(size * size).fill(200)
  for (const mode of ['erase', 'restore'] as const) {
    mask.begin({ mode, size: 40, hardness: 0.5 }, 10, 10)
    for (let i = 1; i <= 40; i++) {
      const changed = mask.to(10 + i * 2, 10 + i * 2)
      if (changed) composeRect(out, photo, matte, mask.values, size, changed, i % 2 ? 'cutout' : 'overlay')
    }
    mask.end()
  }
  mask.undo()
  mask.redo()
}
