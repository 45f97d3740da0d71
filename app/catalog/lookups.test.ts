// Lookups by a caller's word: only the catalog's own keys count, never what every object inherits.
import { describe, expect, it } from 'vitest'
import { isEditable } from './corrections'
import { isToolSlug } from './tools'

const INHERITED = ['valueOf', 'constructor', '__proto__', 'toString', 'hasOwnProperty']

describe('catalog lookups', () => {
  it('take a tool slug only for the five tools', () => {
    expect(['background-remover', 'face-restorer', 'image-enhancer', 'face-blurrer', 'svg-converter'].every(isToolSlug)).toBe(true)
    for (const name of INHERITED) expect(isToolSlug(name), name).toBe(false)
  })

  it('call only the cutout and the blur editable', () => {
    expect(isEditable('background-remover') && isEditable('face-blurrer')).toBe(true)
    expect(isEditable('image-enhancer')).toBe(false)
    for (const name of INHERITED) expect(isEditable(name), name).toBe(false)
  })
})
