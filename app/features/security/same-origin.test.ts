import { describe, expect, it } from 'vitest'
import { isCrossSiteWrite } from './same-origin.server'

const base = { hasCookies: true, allowedOrigins: ['http://localhost:3000'], secFetchSite: null }

describe('isCrossSiteWrite', () => {
  it('lets reads through whatever their origin', () => {
    expect(isCrossSiteWrite({ ...base, method: 'GET', origin: 'https://evil.example' })).toBe(false)
  })
  it('refuses a cookie-carrying POST from another origin', () => {
    expect(isCrossSiteWrite({ ...base, method: 'POST', origin: 'https://evil.example' })).toBe(true)
  })
  it('refuses an opaque origin and a cross-site fetch without Origin', () => {
    expect(isCrossSiteWrite({ ...base, method: 'POST', origin: 'null' })).toBe(true)
    expect(isCrossSiteWrite({ ...base, method: 'POST', origin: null, secFetchSite: 'cross-site' })).toBe(true)
  })
  it('accepts same-origin posts and token clients that send no cookies', () => {
    expect(isCrossSiteWrite({ ...base, method: 'POST', origin: 'http://localhost:3000' })).toBe(false)
    expect(isCrossSiteWrite({ ...base, method: 'POST', origin: null, secFetchSite: 'same-origin' })).toBe(false)
    expect(isCrossSiteWrite({ ...base, hasCookies: false, method: 'POST', origin: 'https://evil.example' })).toBe(false)
  })
})
