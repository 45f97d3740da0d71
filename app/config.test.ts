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

const base = { NODE_ENV: 'production', PORT: 3000, HOST: '0.0.0.0' }

describe('PUBLIC_URL unset', () => {
  it('follows PORT and HOST', () => {
    const env = { NODE_ENV: 'test', DATA_DIR: 'tests/.tmp/data', SESSION_SECRET: 'x'.repeat(32), RESULTS_KEY: 'a'.repeat(64) } as const
    expect(readConfig(env).PUBLIC_URL).toBe('http://localhost:3000')
    expect(readConfig({ ...env, PORT: '8080' }).PUBLIC_URL).toBe('http://localhost:8080')
    expect(readConfig({ ...env, HOST: '0.0.0.0', PORT: '8080' }).PUBLIC_URL).toBe('http://localhost:8080')
    expect(readConfig({ ...env, HOST: '192.0.2.7', PORT: '8080' }).PUBLIC_URL).toBe('http://192.0.2.7:8080')
    expect(readConfig({ ...env, HOST: '2001:db8::7' }).PUBLIC_URL).toBe('http://[2001:db8::7]:3000')
    expect(readConfig({ ...env, PORT: '8080', PUBLIC_URL: 'https://studio.example' }).PUBLIC_URL).toBe('https://studio.example')
  })

  it('listens on loopback unless told otherwise', () => {
    expect(readConfig({ NODE_ENV: 'test', DATA_DIR: 'tests/.tmp/data', SESSION_SECRET: 'x'.repeat(32), RESULTS_KEY: 'a'.repeat(64) }).HOST).toBe('127.0.0.1')
  })

  it('warns in production when the server listens on every interface', () => {
    expect(publicUrlWarning({ ...base, PORT: 8080 }, false)).toMatch(/PUBLIC_URL is not set.*localhost:8080.*every interface \(0\.0\.0\.0:8080\)/)
    expect(publicUrlWarning({ ...base, HOST: '::' }, false)).toMatch(/every interface/)
  })

  it('stays quiet when PUBLIC_URL is set, in development, or on an address of its own', () => {
    expect(publicUrlWarning({ ...base, PORT: 8080 }, true)).toBeNull()
    expect(publicUrlWarning({ ...base, PORT: 8080, NODE_ENV: 'development' }, false)).toBeNull()
    expect(publicUrlWarning({ ...base, HOST: '127.0.0.1' }, false)).toBeNull()
    expect(publicUrlWarning({ ...base, HOST: '10.0.0.5' }, false)).toBeNull()
  })
})
