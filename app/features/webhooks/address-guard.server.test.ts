// The outbound address guard: every textual form of a non-public address refused (hand cases for each
// form issue 34 names, and a published SSRF corpus), names judged by every answer of a fake resolver
// (no real DNS here), and the connection pinned to the address that was checked. Nothing leaves
// 127.0.0.1: the guard refuses before connecting, and the connection tests use loopback servers.
import { readFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BlockedAddressError,
  checkedAddresses,
  guardedRequest,
  isPublicAddress,
  pinnedLookup,
  type AddressPolicy,
  type ResolvedAddress,
  type Resolver,
} from './address-guard.server'

const family = (address: string): 4 | 6 => (address.includes(':') ? 6 : 4)

/** A fake DNS: each name's answers, in turn for a name given several rounds; it records every question. */
function fakeResolver(table: Record<string, string[] | string[][]>): Resolver & { asked: string[] } {
  const asked: string[] = []
  const rounds = new Map<string, number>()
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname)
    const entry = table[hostname.toLowerCase()]
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    const round = rounds.get(hostname) ?? 0
    rounds.set(hostname, round + 1)
    const answers = Array.isArray(entry[0]) ? (entry as string[][])[Math.min(round, entry.length - 1)] : (entry as string[])
    return answers.map((address) => ({ address, family: family(address) }))
  }
  return Object.assign(resolve, { asked })
}

/** A resolver that fails the test if it is ever asked: IP literals must never reach DNS. */
const noDns: Resolver = async (hostname) => {
  throw new Error(`DNS was asked for ${hostname}`)
}

const refuses = (raw: string, policy: AddressPolicy = { allowPrivate: false, resolve: noDns }) =>
  expect(checkedAddresses(new URL(raw), policy)).rejects.toBeInstanceOf(BlockedAddressError)

describe('which addresses are public', () => {
  it.each([
    ['93.184.215.14', true],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['2a00:1450:4001:800::200e', true],
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
    ['192.0.0.192', false],
    ['192.0.2.1', false],
    ['198.18.0.1', false],
    ['198.51.100.7', false],
    ['203.0.113.9', false],
    ['240.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['fec0::1', false], // site-local, deprecated
    ['fc00::1', false],
    ['fd12:3456:789a::1', false],
    ['ff02::1', false],
    ['ff0e::1', false], // global-scope multicast
    ['::ffff:127.0.0.1', false], // IPv4-mapped
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['::7f00:1', false], // IPv4-compatible (deprecated), ::127.0.0.1: "unicast" to ipaddr.js
    ['::127.0.0.1', false],
    ['::808:808', false], // IPv4-compatible even around a public IPv4
    ['::2', false],
    ['::ffff:0:7f00:1', false], // SIIT (RFC 6145)
    ['64:ff9b::a00:1', false], // NAT64 well-known prefix
    ['64:ff9b::808:808', false],
    ['64:ff9b:1::a9fe:a9fe', false], // NAT64 local-use prefix (RFC 8215)
    ['2002:7f00:1::', false], // 6to4
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false], // Teredo
    ['2001:db8::1', false],
    ['3fff::1', false],
    ['100::1', false], // discard-only
    ['4000::1', false], // unassigned, outside 2000::/3
    ['not an address', false],
    ['', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected)
  })
})

describe('every textual form of a non-public host is refused before any connection', () => {
  it.each([
    ['IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped IPv6, hex', 'http://[::ffff:7f00:1]/'],
    ['IPv4-compatible IPv6 (deprecated)', 'http://[::127.0.0.1]/'],
    ['IPv4-compatible IPv6, hex', 'http://[0:0:0:0:0:0:7f00:1]/'],
    ['NAT64 well-known prefix', 'http://[64:ff9b::127.0.0.1]/'],
    ['NAT64 local-use prefix', 'http://[64:ff9b:1::169.254.169.254]/'],
    ['6to4', 'http://[2002:7f00:0001::1]/'],
    ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/'],
    ['decimal IPv4', 'http://2130706433/'],
    ['octal IPv4', 'http://0177.0.0.01/'],
    ['hex IPv4', 'http://0x7f.0x0.0x0.0x1/'],
    ['hex IPv4, one number', 'http://0x7F000001/'],
    ['short IPv4', 'http://127.1/'],
    ['short IPv4, three parts', 'http://10.1.1/'],
    ['trailing dot on an IPv4', 'http://127.0.0.1./'],
    ['trailing dot on a hex IPv4', 'http://0x7f.1./'],
    ['percent-encoded IPv4', 'http://%31%32%37.0.0.1/'],
    ['full-width digits', 'http://１２７.０.０.１/'],
    ['unspecified', 'http://0/'],
    ['IPv6 loopback, long', 'http://[0:0:0:0:0:0:0:1]/'],
    ['link-local IPv6', 'http://[fe80::1]/'],
    ['unique-local IPv6', 'http://[fd00:ec2::254]/'],
    ['multicast IPv4', 'http://224.0.0.251/'],
    ['broadcast', 'http://255.255.255.255/'],
    ['reserved IPv4', 'http://240.0.0.1/'],
    ['localhost', 'http://localhost/'],
    ['localhost, trailing dot', 'http://localhost./'],
    ['localhost, capitals', 'http://LocalHost/'],
    ['a .localhost name', 'http://api.localhost/'],
  ])('%s: %s', async (_form, raw) => {
    await refuses(raw)
  })

  it('refuses a name when any of its answers is not public, whatever the order', async () => {
    const resolve = fakeResolver({
      'loopback.example': ['127.0.0.1'],
      'mapped.example': ['::ffff:7f00:1'],
      'compat.example': ['::7f00:1'],
      'mixed.example': ['93.184.215.14', '10.0.0.5'],
      'mixed6.example': ['2606:4700:4700::1111', 'fd00::1'],
      'rebind.example': [['93.184.215.14'], ['127.0.0.1']],
    })
    const policy = { allowPrivate: false, resolve }
    for (const name of ['loopback', 'mapped', 'compat', 'mixed', 'mixed6']) await refuses(`https://${name}.example/hook`, policy)
    await refuses('https://loopback.example./hook', policy)
    // A trailing dot is dropped before the resolver is asked: the same name, the same answers.
    expect(resolve.asked).toContain('loopback.example')
    expect(resolve.asked).not.toContain('loopback.example.')
  })

  it('lets public addresses and names through, and asks DNS only for names', async () => {
    expect(await checkedAddresses(new URL('https://93.184.215.14/'), { allowPrivate: false, resolve: noDns })).toEqual([{ address: '93.184.215.14', family: 4 }])
    expect(await checkedAddresses(new URL('https://[2606:4700:4700::1111]/'), { allowPrivate: false, resolve: noDns })).toEqual([
      { address: '2606:4700:4700::1111', family: 6 },
    ])
    const resolve = fakeResolver({ 'hooks.example': ['93.184.215.14', '2606:4700:4700::1111'] })
    expect(await checkedAddresses(new URL('https://hooks.example/x'), { allowPrivate: false, resolve })).toHaveLength(2)
  })

  it('a name that does not resolve is the resolver\'s error, not a pass', async () => {
    await expect(checkedAddresses(new URL('https://nowhere.example/'), { allowPrivate: false, resolve: fakeResolver({}) })).rejects.toMatchObject({
      code: 'ENOTFOUND',
    })
    await expect(checkedAddresses(new URL('https://empty.example/'), { allowPrivate: false, resolve: fakeResolver({ 'empty.example': [] }) })).rejects.toMatchObject({
      code: 'ENOTFOUND',
    })
  })

  it('WEBHOOKS_ALLOW_PRIVATE lets private targets through', async () => {
    expect(await checkedAddresses(new URL('http://[::127.0.0.1]/'), { allowPrivate: true, resolve: noDns })).toEqual([{ address: '::7f00:1', family: 6 }])
    const resolve = fakeResolver({ localhost: ['127.0.0.1'] })
    expect(await checkedAddresses(new URL('http://localhost:3000/'), { allowPrivate: true, resolve })).toEqual([{ address: '127.0.0.1', family: 4 }])
  })
})

// PayloadsAllTheThings' SSRF address forms (MIT; the file's header credits it). A name is answered
// with what the corpus says it points to; an entry the WHATWG URL parser rejects is refused by every
// caller as "not a valid URL" before the guard.
describe('a published SSRF corpus', () => {
  const corpusFile = path.resolve('tests/fixtures/ssrf/payloads-all-the-things.txt')
  const entries = readFileSync(corpusFile, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [raw, answers] = line.split(' -> ')
      return { raw, answers: answers ? answers.split(/\s+/) : [] }
    })
  const names: Record<string, string[]> = {}
  for (const { raw, answers } of entries) {
    if (!answers.length) continue
    names[new URL(raw).hostname.toLowerCase()] = answers
  }
  // What the URL parser itself rejects (numbers past 255 or 32 bits, letters before an octal number).
  const unparseable = ['http://o177.0.0.1/', 'http://0o177.0.0.1/', 'http://q177.0.0.1/', 'http://425.510.425.510', 'http://7147006462', 'http://0x41414141A9FEA9FE']

  it('holds the corpus (every section read)', () => {
    expect(entries.length).toBeGreaterThan(60)
  })

  it.each(entries.map((e) => [e.raw]))('refuses %s', async (raw) => {
    if (unparseable.includes(raw)) {
      expect(() => new URL(raw)).toThrow()
      return
    }
    await refuses(raw, { allowPrivate: false, resolve: fakeResolver(names) })
  })

  it('names exactly the entries the URL parser rejects', () => {
    expect(entries.filter((e) => URL.canParse(e.raw) === false).map((e) => e.raw)).toEqual(unparseable)
  })
})

describe('the socket connects only to the address that was checked', () => {
  it('a pinned lookup answers the checked addresses, by family and for "all"', async () => {
    const lookup = pinnedLookup([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ])
    const ask = (options: Parameters<typeof lookup>[1]) =>
      new Promise<unknown>((resolve, reject) => lookup('anything.example', options, (error, address, fam) => (error ? reject(error) : resolve([address, fam]))))
    expect(await ask({})).toEqual(['93.184.215.14', 4])
    expect(await ask({ family: 6 })).toEqual(['2606:4700:4700::1111', 6])
    expect(await ask({ all: true })).toEqual([
      [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700:4700::1111', family: 6 },
      ],
      undefined,
    ])
    const onlyV4 = pinnedLookup([{ address: '93.184.215.14', family: 4 }])
    await expect(
      new Promise((resolve, reject) => onlyV4('x.example', { family: 6 }, (error, address) => (error ? reject(error) : resolve(address)))),
    ).rejects.toMatchObject({ code: 'ENOTFOUND' })
  })

  // Two loopback servers on one port: 127.0.0.2 stands in for the public internet (the test's policy
  // counts it as public), 127.0.0.1 is the studio's own network and records whether it was reached.
  let inside: http.Server
  let outside: http.Server
  let port = 0
  const reached = { inside: 0, outside: 0 }
  const standIn = (address: string) => address === '127.0.0.2' || isPublicAddress(address)

  beforeAll(async () => {
    outside = http.createServer((_req, res) => {
      reached.outside++
      res.end('outside')
    })
    await new Promise<void>((resolve) => outside.listen(0, '127.0.0.2', resolve))
    port = (outside.address() as AddressInfo).port
    inside = http.createServer((_req, res) => {
      reached.inside++
      res.end('inside')
    })
    await new Promise<void>((resolve, reject) => {
      inside.once('error', reject)
      inside.listen(port, '127.0.0.1', resolve)
    })
  })
  afterAll(async () => {
    await Promise.all([inside, outside].map((s) => new Promise((resolve) => s.close(resolve))))
  })

  async function get(raw: string, policy: AddressPolicy): Promise<string> {
    const request = await guardedRequest(new URL(raw), { method: 'GET' }, policy, 5000)
    return new Promise((resolve, reject) => {
      request.on('response', (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve(body))
      })
      request.on('error', reject)
      request.end()
    })
  }

  it('a name answering public first and loopback next never leads to loopback (DNS rebinding)', async () => {
    // The corpus's rebinding name, answering the stand-in first and loopback on every later question.
    const resolve = fakeResolver({ 'make-1.2.3.4-rebind-127.0.0.1-rr.1u.ms': [['127.0.0.2'], ['127.0.0.1']] })
    const url = `http://make-1.2.3.4-rebind-127.0.0.1-rr.1u.ms:${port}/`
    const policy = { allowPrivate: false, resolve, isPublic: standIn }
    const before = { ...reached }
    expect(await get(url, policy)).toBe('outside')
    // Every later check sees the loopback answer and refuses before connecting.
    await expect(get(url, policy)).rejects.toBeInstanceOf(BlockedAddressError)
    await expect(get(url, policy)).rejects.toBeInstanceOf(BlockedAddressError)
    expect(reached.inside).toBe(before.inside)
    expect(reached.outside).toBe(before.outside + 1)
    // One question per request: the connection itself never asked DNS again.
    expect(resolve.asked).toHaveLength(3)
  })

  it('stops waiting for a resolver past the time limit', async () => {
    const never: Resolver = () => new Promise(() => {})
    await expect(guardedRequest(new URL('http://slow.example/'), {}, { allowPrivate: false, resolve: never }, 50)).rejects.toThrow(
      'slow.example took longer than 0.05 s to resolve',
    )
  })

  it('a name checked once is connected to at that address even when DNS would now answer loopback', async () => {
    // Private targets allowed, so the check passes either way: what is left to prove is the pin.
    const resolve = fakeResolver({ 'pinned.example': [['127.0.0.2'], ['127.0.0.1']] })
    const before = { ...reached }
    expect(await get(`http://pinned.example:${port}/`, { allowPrivate: true, resolve })).toBe('outside')
    expect(reached.inside).toBe(before.inside)
    expect(resolve.asked).toEqual(['pinned.example'])
  })
})
