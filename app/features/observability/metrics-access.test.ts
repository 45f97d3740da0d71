import { describe, expect, it } from 'vitest'
import { metricsAccess, wasForwarded } from './metrics-access.server'

const TOKEN = 'metrics-token-0123456789'

describe('metricsAccess', () => {
  it('lets a loopback peer in without a token, over IPv4, IPv6 and mapped IPv4', () => {
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect(metricsAccess({ remoteAddress, authorization: undefined, forwarded: false }, undefined)).toEqual({ allowed: true })
    }
  })

  it('treats a forwarded request from loopback as coming from elsewhere (a local reverse proxy)', () => {
    expect(metricsAccess({ remoteAddress: '127.0.0.1', authorization: undefined, forwarded: true }, undefined)).toMatchObject({ allowed: false, status: 404 })
  })

  it('answers 404 to anyone else when no token is configured, even with a bearer token', () => {
    expect(metricsAccess({ remoteAddress: '10.0.0.7', authorization: `Bearer ${TOKEN}`, forwarded: false }, undefined)).toMatchObject({ allowed: false, status: 404 })
  })

  it('opens to the configured bearer token only', () => {
    const from = (authorization: string | undefined) => metricsAccess({ remoteAddress: '10.0.0.7', authorization, forwarded: false }, TOKEN)
    expect(from(`Bearer ${TOKEN}`)).toEqual({ allowed: true })
    expect(from(`bearer ${TOKEN}`)).toEqual({ allowed: true })
    expect(from(`Bearer ${TOKEN}x`)).toMatchObject({ allowed: false, status: 401 })
    expect(from(`Basic ${TOKEN}`)).toMatchObject({ allowed: false, status: 401 })
    expect(from(undefined)).toMatchObject({ allowed: false, status: 401, headers: { 'WWW-Authenticate': expect.stringMatching(/^Bearer/) } })
  })

  it('knows the headers proxies add', () => {
    expect(wasForwarded({ 'x-forwarded-for': '1.2.3.4' })).toBe(true)
    expect(wasForwarded({ forwarded: 'for=1.2.3.4' })).toBe(true)
    expect(wasForwarded({ 'x-real-ip': '1.2.3.4' })).toBe(true)
    expect(wasForwarded({ host: 'x' })).toBe(false)
  })
})
