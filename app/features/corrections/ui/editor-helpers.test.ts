import { describe, expect, it } from 'vitest'
import { faceRows, faceValue, parseFaceValue, shownDecision } from './edit-fields'
import { brushKey, cursorStep, historyKey, isTextEntry } from './editor-keys'
import { boxFromDrag, cropStyle, MIN_DRAWN_BOX, toImagePoint } from './face-geometry'

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
})

describe('historyKey', () => {
  it('undo is Ctrl+Z or Cmd+Z; redo is Shift with it, or Ctrl+Y', () => {
    expect(historyKey(key('z', { ctrlKey: true }))).toBe('undo')
    expect(historyKey(key('z', { metaKey: true }))).toBe('undo')
    expect(historyKey(key('Z', { ctrlKey: true, shiftKey: true }))).toBe('redo')
    expect(historyKey(key('y', { ctrlKey: true }))).toBe('redo')
    expect(historyKey(key('z'))).toBeNull()
    expect(historyKey(key('z', { ctrlKey: true, altKey: true }))).toBeNull()
  })
})

describe('isTextEntry', () => {
  const element = (tagName: string, type = '') => ({ tagName, type, isContentEditable: false }) as unknown as EventTarget
  it('a text or number field keeps its own undo; a checkbox or the canvas do not', () => {
    expect(isTextEntry(element('INPUT', 'number'))).toBe(true)
    expect(isTextEntry(element('TEXTAREA'))).toBe(true)
    expect(isTextEntry(element('INPUT', 'checkbox'))).toBe(false)
    expect(isTextEntry(element('CANVAS'))).toBe(false)
    expect(isTextEntry(null)).toBe(false)
  })
})

describe('brushKey', () => {
  it('maps arrows, paint, size and mode keys, and nothing with a modifier', () => {
    expect(brushKey(key('ArrowLeft'))).toEqual({ kind: 'move', dx: -1, dy: 0 })
    expect(brushKey(key('ArrowDown'))).toEqual({ kind: 'move', dx: 0, dy: 1 })
    expect(brushKey(key(' '))).toEqual({ kind: 'paint' })
    expect(brushKey(key('Enter'))).toEqual({ kind: 'paint' })
    expect(brushKey(key('['))).toEqual({ kind: 'size', delta: -1 })
    expect(brushKey(key(']'))).toEqual({ kind: 'size', delta: 1 })
    expect(brushKey(key('E'))).toEqual({ kind: 'mode', mode: 'erase' })
    expect(brushKey(key('r'))).toEqual({ kind: 'mode', mode: 'restore' })
    expect(brushKey(key('z', { ctrlKey: true }))).toBeNull()
    expect(brushKey(key('a'))).toBeNull()
  })
  it('the cursor moves a quarter of the brush, four times that with Shift, at least 1 px', () => {
    expect(cursorStep(40, false)).toBe(10)
    expect(cursorStep(40, true)).toBe(40)
    expect(cursorStep(2, false)).toBe(1)
  })
})

describe('face boxes', () => {
  it('a drag gives a box in image pixels whichever way it went, kept inside the image', () => {
    expect(boxFromDrag({ x: 50, y: 60 }, { x: 10, y: 20 }, 100, 100)).toEqual({ x: 10, y: 20, width: 40, height: 40 })
    expect(boxFromDrag({ x: -20, y: 90 }, { x: 30, y: 150 }, 100, 100)).toEqual({ x: 0, y: 90, width: 30, height: 10 })
    expect(boxFromDrag({ x: 10, y: 10 }, { x: 10 + MIN_DRAWN_BOX - 1, y: 40 }, 100, 100)).toBeNull()
  })
  it('a point on the shown image is scaled to the image', () => {
    expect(toImagePoint(110, 70, { left: 10, top: 20, width: 200, height: 100 }, 1000, 500)).toEqual({ x: 500, y: 250 })
  })
  it('a face value round-trips, and anything else is refused', () => {
    expect(parseFaceValue(faceValue({ x: 1.4, y: 2, width: 30, height: 40 }))).toEqual({ x: 1, y: 2, width: 30, height: 40 })
    expect(parseFaceValue('1,2,3')).toBeNull()
    expect(parseFaceValue('1,2,3,x')).toBeNull()
    expect(parseFaceValue('1.5,2,3,4')).toBeNull()
  })
  it('lists the detected faces, ticked when blurred, then the boxes the user drew', () => {
    const detected = [
      { x: 0, y: 0, width: 10, height: 10, score: 0.9 },
      { x: 20, y: 0, width: 10, height: 10, score: 0.6 },
    ]
    const blurred = [detected[0]!, { x: 50, y: 50, width: 8, height: 8, score: null }]
    expect(faceRows(detected, blurred).map((r) => [r.detected, r.blurred, r.box.x])).toEqual([
      [true, true, 0],
      [true, false, 20],
      [false, true, 50],
    ])
  })
  it('a face thumbnail shows its box fitted and centred in the square', () => {
    // A 1000 px wide image previewed at 500: the 100 × 50 box at (200, 100) is 50 × 25 preview px.
    const style = cropStyle({ x: 200, y: 100, width: 100, height: 50 }, { width: 1000, height: 800 }, { url: '/p.jpg', width: 500, height: 400 }, 50)
    expect(style.backgroundSize).toBe('500px 400px')
    expect(style.backgroundPosition).toBe('-100px -37.5px')
    expect(style.backgroundImage).toBe('url("/p.jpg")')
  })
})

describe('shownDecision', () => {
  it("is the user's choice, else what the refinement did", () => {
    expect(shownDecision({ decision: 'remove', keptByRefinement: true })).toBe('remove')
    expect(shownDecision({ decision: null, keptByRefinement: true })).toBe('keep')
    expect(shownDecision({ decision: null, keptByRefinement: false })).toBe('remove')
  })
})
