import { describe, expect, it } from 'vitest'
import { guardedLookup, isPublicAddress } from './address-guard.server'

describe('the webhook address guard', () => {
  it.each([
    ['93.184.215.14', true],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['10.0.0.1', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['239.255.255.250', false],
    ['192.0.2.1', false],
    ['198.18.0.1', false],
    ['240.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['fd12:3456:789a::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['64:ff9b::a00:1', false],
    ['2002:7f00:1::', false],
    ['2001:db8::1', false],
    ['not an address', false],
    ['', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected)
  })

  it('refuses a name that resolves to loopback at lookup time, unless private targets are allowed', async () => {
    const lookup = (allow: boolean, all: boolean) =>
      new Promise<unknown>((resolve, reject) =>
        guardedLookup(allow)('localhost', { all }, (error, address) => (error ? reject(error) : resolve(address))),
      )
    await expect(lookup(false, false)).rejects.toThrow(/not a public address/)
    await expect(lookup(false, true)).rejects.toThrow(/not a public address/)
    expect(String(await lookup(true, false))).toMatch(/^(127\.0\.0\.1|::1)$/)
    expect(await lookup(true, true)).toEqual(expect.arrayContaining([expect.objectContaining({ address: expect.any(String) })]))
  })
})
