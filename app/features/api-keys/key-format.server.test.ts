import { describe, expect, it } from 'vitest'
import { generateApiKey, hashApiKey, parseApiKey } from './key-format.server'

describe('API key format', () => {
  it('makes keys with a readable prefix, 30 random characters and a checksum', () => {
    const live = generateApiKey('live')
    const test = generateApiKey('test')
    expect(live.key).toMatch(/^fs_live_[0-9A-Za-z]{36}$/)
    expect(test.key).toMatch(/^fs_test_[0-9A-Za-z]{36}$/)
    expect(live.prefix).toBe(live.key.slice(0, 12))
    expect(live.hash).toBe(hashApiKey(live.key))
    expect(live.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(parseApiKey(live.key)).toEqual({ environment: 'live' })
    expect(parseApiKey(test.key)).toEqual({ environment: 'test' })
  })

  it('never makes the same key twice', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey('live').key))
    expect(keys.size).toBe(200)
  })

  it('refuses a key whose checksum, length, prefix or alphabet is wrong', () => {
    const { key } = generateApiKey('live')
    const lastChar = key.at(-1)!
    const flipped = key.slice(0, -1) + (lastChar === 'a' ? 'b' : 'a')
    const typo = key.slice(0, 10) + (key[10] === 'x' ? 'y' : 'x') + key.slice(11)
    for (const bad of [flipped, typo, key.slice(0, -1), key + 'a', key.replace('fs_live_', 'fs_prod_'), key.replace('fs_live_', 'FS_LIVE_'), key.slice(0, -2) + '-_', '', 'fs_live_']) {
      expect(parseApiKey(bad), bad).toBeNull()
    }
  })
})
