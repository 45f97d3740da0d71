import { describe, expect, it } from 'vitest'
import { addressGroup } from './client-address.server'

describe('addressGroup: what a per-address budget counts by', () => {
  it('keeps an IPv4 address as it is, and unwraps an IPv4-mapped IPv6 one', () => {
    expect(addressGroup('203.0.113.7')).toBe('203.0.113.7')
    expect(addressGroup('::ffff:203.0.113.7')).toBe('203.0.113.7')
  })

  it('groups IPv6 by /64: every address of one line is one budget, the next /64 another', () => {
    const group = addressGroup('2001:db8:1:2::a')
    expect(group).toBe('2001:db8:1:2::/64')
    expect(addressGroup('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(group)
    expect(addressGroup('2001:db8:1:2:1234:5678:9abc:def0')).toBe(group)
    expect(addressGroup('2001:db8:1:3::a')).not.toBe(group)
  })

  it('counts an unreadable value as itself (never as a fresh budget per request)', () => {
    expect(addressGroup('unknown')).toBe('unknown')
  })
})
