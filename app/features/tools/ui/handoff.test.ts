import { describe, expect, it } from 'vitest'
import { handOff, takeHandoff } from './handoff'

describe('the home page hand-off', () => {
  it('gives the file to the tool it was meant for, once', () => {
    const file = new File([new Uint8Array([1, 2, 3])], 'photo.png', { type: 'image/png' })
    handOff('background-remover', file)
    expect(takeHandoff('face-blurrer')).toBeNull()
    expect(takeHandoff('background-remover')).toBe(file)
    expect(takeHandoff('background-remover')).toBeNull()
  })
})
