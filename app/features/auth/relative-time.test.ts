import { describe, expect, it } from 'vitest'
import { relativeTime } from './relative-time'
import { displayName } from './display'

const now = '2026-11-22T12:00:00.000Z'

describe('relativeTime', () => {
  it('reads recent moments in words', () => {
    expect(relativeTime('2026-11-22T11:59:50.000Z', now)).toBe('just now')
    expect(relativeTime('2026-11-22T11:55:00.000Z', now)).toBe('5 minutes ago')
    expect(relativeTime('2026-11-22T09:00:00.000Z', now)).toBe('3 hours ago')
    expect(relativeTime('2026-11-21T10:00:00.000Z', now)).toBe('yesterday')
    expect(relativeTime('2026-11-01T12:00:00.000Z', now)).toBe('3 weeks ago')
  })
})

describe('displayName', () => {
  it('prefers the full name, then the email, then the fallback', () => {
    expect(displayName({ first_name: 'Ada', last_name: 'Lovelace', email: 'a@x.test' })).toBe('Ada Lovelace')
    expect(displayName({ first_name: 'Ada', last_name: null, email: 'a@x.test' })).toBe('Ada')
    expect(displayName({ first_name: ' ', last_name: null, email: 'a@x.test' })).toBe('a@x.test')
    expect(displayName({ first_name: null, last_name: null, email: '' })).toBe('Your account')
    expect(displayName(null)).toBe('Your account')
  })
})
