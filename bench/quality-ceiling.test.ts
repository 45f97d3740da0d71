import { describe, expect, it } from 'vitest'
import { ceilingMatte } from './quality-ceiling'

// 10×6 pictures drawn as rows of characters: '#' 255, '+' 128, '.' 0.
const picture = (...rows: string[]) =>
  Uint8Array.from(rows.join('').split(''), (c) => (c === '#' ? 255 : c === '+' ? 128 : 0))
const WIDTH = 10
const HEIGHT = 6

describe('the refinement ceiling', () => {
  // The model took the object (left) with a hole in it, and a backdrop part (right).
  const model = picture(
    '..........',
    '.####..##.',
    '.#..#..##.',
    '.####..##.',
    '..........',
    '..........',
  )
  /** The model's left part alone, or its right part alone (column 6 on). */
  const leftOf = (image: Uint8Array) => Uint8Array.from(image, (v, p) => (p % WIDTH < 6 ? v : 0))
  const rightOf = (image: Uint8Array) => Uint8Array.from(image, (v, p) => (p % WIDTH >= 6 ? v : 0))
  const object = picture(
    '..........',
    '.####.....',
    '.####.....',
    '.####.....',
    '..........',
    '..........',
  )

  it('keeps the parts and fills the holes the truth says, and nothing else', () => {
    expect(ceilingMatte(model, object, WIDTH, HEIGHT, { neverEmpty: true, edgeReach: 0 })).toEqual(object)
  })

  it('keeps a hole the truth says is background', () => {
    const ring = leftOf(model)
    expect(ceilingMatte(model, ring, WIDTH, HEIGHT, { neverEmpty: true, edgeReach: 0 })).toEqual(ring)
  })

  it('drops every part only when it may, else keeps the one that costs least', () => {
    // The object is elsewhere: both parts are wrong, the right one less so (it overlaps the object).
    const elsewhere = picture(
      '..........',
      '........##',
      '........##',
      '........##',
      '..........',
      '..........',
    )
    expect(ceilingMatte(model, elsewhere, WIDTH, HEIGHT, { neverEmpty: false, edgeReach: 0 })).toEqual(new Uint8Array(WIDTH * HEIGHT))
    const kept = ceilingMatte(model, elsewhere, WIDTH, HEIGHT, { neverEmpty: true, edgeReach: 0 })
    expect(kept).toEqual(rightOf(model))
  })

  it('never keeps a speck to stay non-empty', () => {
    // Both parts are wrong; the one-pixel speck would cost least, but a remover drops specks.
    const withSpeck = picture(
      '.........#',
      '.####.....',
      '.####.....',
      '.####.....',
      '..........',
      '..........',
    )
    const nothing = new Uint8Array(WIDTH * HEIGHT)
    expect(ceilingMatte(withSpeck, nothing, WIDTH, HEIGHT, { neverEmpty: true, edgeReach: 0 })).toEqual(object)
  })

  it('copies the truth near the chosen outline only', () => {
    // A soft edge one pixel outside the object: within reach 1 of the outline it is the truth's.
    const soft = picture(
      '.++++.....',
      '+####+....',
      '+####+....',
      '+####+....',
      '.++++.....',
      '..........',
    )
    expect(ceilingMatte(model, soft, WIDTH, HEIGHT, { neverEmpty: true, edgeReach: 1 })).toEqual(soft)
    // Without the edge the soft pixels stay clear.
    expect(ceilingMatte(model, soft, WIDTH, HEIGHT, { neverEmpty: true, edgeReach: 0 })).toEqual(object)
  })
})
