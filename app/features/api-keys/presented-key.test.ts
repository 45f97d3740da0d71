import { describe, expect, it } from 'vitest'
import { presentedApiKey } from './presented-key'

describe('the API key a request presents', () => {
  it('is the Bearer key, or X-Api-Key alone, or the same key in both', () => {
    expect(presentedApiKey('Bearer fs_live_a', null)).toEqual({ kind: 'key', key: 'fs_live_a' })
    expect(presentedApiKey(null, ' fs_live_b ')).toEqual({ kind: 'key', key: 'fs_live_b' })
    expect(presentedApiKey('bearer fs_live_c', 'fs_live_c')).toEqual({ kind: 'key', key: 'fs_live_c' })
  })

  it('is none without either header (a session Token or a cookie goes its own way)', () => {
    expect(presentedApiKey(null, null)).toEqual({ kind: 'none' })
    expect(presentedApiKey('Token abc', undefined)).toEqual({ kind: 'none' })
    expect(presentedApiKey(undefined, '   ')).toEqual({ kind: 'none' })
  })

  it('is a conflict when X-Api-Key sits beside another credential, never one of them ignored', () => {
    expect(presentedApiKey('Token abc', 'fs_live_d')).toEqual({ kind: 'conflict' })
    expect(presentedApiKey('Bearer fs_live_e', 'fs_live_d')).toEqual({ kind: 'conflict' })
    expect(presentedApiKey('Basic Zm9vOmJhcg==', 'fs_live_d')).toEqual({ kind: 'conflict' })
  })
})
