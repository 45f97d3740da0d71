import { describe, expect, it } from 'vitest'
import {
  BRUSH_SIZE,
  BrushMask,
  clampBrushSize,
  composeRect,
  dabCoverage,
  MASK_LEAVE,
  MASK_REMOVE,
  MASK_RESTORE,
  maskFromRgba,
  maskToRgba,
  UNDO_LIMIT,
  unionRect,
} from './brush-mask'

const at = (mask: BrushMask, x: number, y: number) => mask.values[y * mask.width + x]!

describe('dabCoverage', () => {
  it('covers the hard core fully, nothing at or past the radius, and falls in between', () => {
    expect(dabCoverage(0, 10, 0.5)).toBe(1)
    expect(dabCoverage(5, 10, 0.5)).toBe(1)
    expect(dabCoverage(10, 10, 0.5)).toBe(0)
    const middle = dabCoverage(7.5, 10, 0.5)
    expect(middle).toBeGreaterThan(0)
    expect(middle).toBeLessThan(1)
    expect(dabCoverage(6, 10, 0.5)).toBeGreaterThan(dabCoverage(9, 10, 0.5))
  })
  it('a fully hard brush has no soft edge', () => {
    expect(dabCoverage(9.9, 10, 1)).toBe(1)
  })
})

describe('BrushMask strokes', () => {
  it('starts at "leave" everywhere, or from the stored mask', () => {
    expect(new BrushMask(4, 3).values.every((v) => v === MASK_LEAVE)).toBe(true)
    const stored = new Uint8Array(12).fill(7)
    expect(at(new BrushMask(4, 3, stored), 2, 1)).toBe(7)
    expect(() => new BrushMask(4, 3, new Uint8Array(5))).toThrow(RangeError)
  })

  it('a hard erase dab removes inside its circle and leaves the rest', () => {
    const mask = new BrushMask(40, 40)
    const changed = mask.begin({ mode: 'erase', size: 10, hardness: 1 }, 20, 20)
    mask.end()
    expect(at(mask, 20, 20)).toBe(MASK_REMOVE)
    expect(at(mask, 2, 2)).toBe(MASK_LEAVE)
    expect(changed).toEqual({ x: 15, y: 15, width: 10, height: 10 })
  })

  it('a restore stroke paints the whole segment, however far the pointer jumped', () => {
    const mask = new BrushMask(100, 20)
    mask.begin({ mode: 'restore', size: 6, hardness: 1 }, 5, 10)
    mask.to(95, 10)
    mask.end()
    for (let x = 5; x <= 95; x += 5) expect(at(mask, x, 10)).toBe(MASK_RESTORE)
    expect(at(mask, 50, 1)).toBe(MASK_LEAVE)
  })

  it('a soft edge is the same whether a stroke passes once or dabs over itself many times', () => {
    const once = new BrushMask(60, 60)
    once.begin({ mode: 'erase', size: 30, hardness: 0 }, 30, 30)
    once.end()
    const many = new BrushMask(60, 60)
    many.begin({ mode: 'erase', size: 30, hardness: 0 }, 30, 30)
    for (let i = 0; i < 20; i++) many.to(30 + (i % 2) * 0.5, 30)
    many.end()
    const edge = at(once, 30 + 11, 30)
    expect(edge).toBeGreaterThan(MASK_REMOVE)
    expect(edge).toBeLessThan(MASK_LEAVE)
    // Overlapping dabs of one stroke never push a pixel past what the nearest dab covers.
    expect(Math.abs(at(many, 30 + 11, 30) - edge)).toBeLessThanOrEqual(Math.abs(at(once, 30 + 10, 30) - edge))
  })

  it('undo puts back exactly what the stroke changed, and redo paints it again', () => {
    const mask = new BrushMask(30, 30)
    mask.begin({ mode: 'erase', size: 8, hardness: 0.5 }, 10, 10)
    mask.to(20, 20)
    mask.end()
    const painted = mask.values.slice()
    mask.begin({ mode: 'restore', size: 8, hardness: 1 }, 15, 15)
    mask.end()
    expect(mask.canUndo).toBe(true)
    mask.undo()
    expect([...mask.values]).toEqual([...painted])
    mask.undo()
    expect(mask.values.every((v) => v === MASK_LEAVE)).toBe(true)
    expect(mask.canUndo).toBe(false)
    expect(mask.undo()).toBeNull()
    mask.redo()
    expect([...mask.values]).toEqual([...painted])
    expect(mask.canRedo).toBe(true)
  })

  it('a new stroke after an undo drops the redo', () => {
    const mask = new BrushMask(20, 20)
    mask.begin({ mode: 'erase', size: 4, hardness: 1 }, 5, 5)
    mask.end()
    mask.undo()
    mask.begin({ mode: 'restore', size: 4, hardness: 1 }, 15, 15)
    mask.end()
    expect(mask.canRedo).toBe(false)
  })

  it('keeps at most UNDO_LIMIT strokes', () => {
    const mask = new BrushMask(UNDO_LIMIT + 10, 4)
    for (let x = 0; x < UNDO_LIMIT + 5; x++) {
      mask.begin({ mode: 'erase', size: BRUSH_SIZE.min, hardness: 1 }, x + 0.5, 2)
      mask.end()
    }
    let undone = 0
    while (mask.undo()) undone++
    expect(undone).toBe(UNDO_LIMIT)
    // The oldest strokes stay painted.
    expect(at(mask, 0, 2)).toBe(MASK_REMOVE)
  })

  it('clear is one undoable step back to "leave"', () => {
    const mask = new BrushMask(10, 10)
    expect(mask.clear()).toBeNull()
    mask.begin({ mode: 'erase', size: 4, hardness: 1 }, 5, 5)
    mask.end()
    expect(mask.touched).toBe(true)
    mask.clear()
    expect(mask.touched).toBe(false)
    mask.undo()
    expect(at(mask, 5, 5)).toBe(MASK_REMOVE)
  })

  it('a stroke that starts outside the picture changes nothing and records no step', () => {
    const mask = new BrushMask(10, 10)
    expect(mask.begin({ mode: 'erase', size: 4, hardness: 1 }, -50, -50)).toBeNull()
    mask.end()
    expect(mask.canUndo).toBe(false)
  })
})

describe('mask pixels', () => {
  it('round-trips through opaque grey RGBA', () => {
    const values = new Uint8Array([0, 128, 255, 37])
    const rgba = maskToRgba(values)
    expect([...rgba.slice(4, 8)]).toEqual([128, 128, 128, 255])
    expect([...maskFromRgba(rgba, 2, 2)]).toEqual([...values])
  })
})

describe('composeRect', () => {
  const photo = new Uint8ClampedArray([200, 100, 50, 255, 10, 20, 30, 255])
  const matte = new Uint8Array([255, 0])
  it('cutout view: the photo with the masked alpha (128 leaves, 255 restores, 0 removes, in proportion between)', () => {
    const out = new Uint8ClampedArray(8)
    composeRect(out, photo, matte, new Uint8Array([MASK_REMOVE, MASK_RESTORE]), 2, { x: 0, y: 0, width: 2, height: 1 }, 'cutout')
    expect([...out]).toEqual([200, 100, 50, 0, 10, 20, 30, 255])
    composeRect(out, photo, new Uint8Array([100, 90]), new Uint8Array([64, MASK_LEAVE]), 2, { x: 0, y: 0, width: 2, height: 1 }, 'cutout')
    expect([out[3], out[7]]).toEqual([50, 90])
  })
  it('overlay view: opaque, what is removed tinted red, only inside the rect', () => {
    const out = new Uint8ClampedArray(8)
    composeRect(out, photo, matte, new Uint8Array([MASK_LEAVE, MASK_LEAVE]), 2, { x: 1, y: 0, width: 1, height: 1 }, 'overlay')
    expect([...out.slice(0, 4)]).toEqual([0, 0, 0, 0])
    expect(out[7]).toBe(255)
    expect(out[4]!).toBeGreaterThan(10)
  })
})

describe('small helpers', () => {
  it('clampBrushSize keeps whole sizes within the brush range', () => {
    expect(clampBrushSize(0)).toBe(BRUSH_SIZE.min)
    expect(clampBrushSize(10_000)).toBe(BRUSH_SIZE.max)
    expect(clampBrushSize(Number.NaN)).toBe(BRUSH_SIZE.default)
  })
  it('unionRect joins boxes and ignores empty ones', () => {
    expect(unionRect(null, { x: 1, y: 1, width: 2, height: 2 })).toEqual({ x: 1, y: 1, width: 2, height: 2 })
    expect(unionRect({ x: 0, y: 0, width: 2, height: 2 }, { x: 5, y: 1, width: 1, height: 4 })).toEqual({ x: 0, y: 0, width: 6, height: 5 })
  })
})
