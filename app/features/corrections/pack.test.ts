import { describe, expect, it } from 'vitest'
import { pack, unpack } from './pack.server'

describe('pack', () => {
  it('gives back the meta and every section sent, and leaves out an absent one', () => {
    const packed = pack({ width: 3, name: 'x' }, { a: Buffer.from([1, 2, 3]), b: null, c: Buffer.from('hello') })
    const { meta, sections } = unpack<{ width: number; name: string }>(packed)
    expect(meta).toEqual({ width: 3, name: 'x' })
    expect(Object.keys(sections).sort()).toEqual(['a', 'c'])
    expect([...sections.a!]).toEqual([1, 2, 3])
    expect(sections.c!.toString()).toBe('hello')
  })
})
