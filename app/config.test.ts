import { describe, expect, it } from 'vitest'
import { parseTrustProxy, publicUrlWarning, readConfig } from './config.server'

describe('TRUST_PROXY', () => {
  it('reads off, hop counts and address lists', () => {
    for (const off of ['', 'false', 'no', '0', 'FALSE']) expect(parseTrustProxy(off)).toBe(0)
    // Trusting every hop let a client pick its own address: `true` is the nearest proxy only.
    expect(parseTrustProxy('true')).toBe(1)
    expect(parseTrustProxy('yes')).toBe(1)
    expect(parseTrustProxy('1')).toBe(1)
    expect(parseTrustProxy('3')).toBe(3)
    expect(parseTrustProxy('loopback, 10.0.0.0/8,192.168.1.7,fd00::/8,172.16.0.0/255.240.0.0')).toEqual([
      'loopback',
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      '172.16.0.0/255.240.0.0',
    ])
  })

  it('refuses what it cannot read, naming the setting', () => {
    for (const bad of ['maybe', '10.0.0.0/33', '10.0.0.300', '-1', '1.5', 'loopback,evil', '::1/129', '99']) {
      expect(() => parseTrustProxy(bad), bad).toThrow(/TRUST_PROXY/)
    }
  })

  it('defaults to trusting no proxy', () => {
    expect(readConfig({ NODE_ENV: 'test', DATA_DIR: 'tests/.tmp/data', SESSION_SECRET: 'x'.repeat(32), RESULTS_KEY: 'a'.repeat(64) }).trustProxy).toBe(0)
  })
})

const base = { NODE_ENV: 'production', PORT: 3000, HOST: '0.0.0.0', PUBLIC_URL: 'http://localhost:3000' }

describe('PUBLIC_URL left at its default', () => {
  it('warns in production when the server listens on another port or host', () => {
    expect(publicUrlWarning({ ...base, PORT: 8080 }, false)).toMatch(/PUBLIC_URL is not set.*listens on 0\.0\.0\.0:8080/)
    expect(publicUrlWarning({ ...base, HOST: '10.0.0.5' }, false)).toMatch(/10\.0\.0\.5:3000/)
  })

  it('stays quiet when PUBLIC_URL is set, in development, or on the default address', () => {
    expect(publicUrlWarning({ ...base, PORT: 8080 }, true)).toBeNull()
    expect(publicUrlWarning({ ...base, PORT: 8080, NODE_ENV: 'development' }, false)).toBeNull()
    expect(publicUrlWarning(base, false)).toBeNull()
    expect(publicUrlWarning({ ...base, HOST: '127.0.0.1' }, false)).toBeNull()
  })
})
