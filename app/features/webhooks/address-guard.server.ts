// Where the studio may send a request on an account's behalf (webhooks, remove.bg's image_url and
// bg_image_url): public unicast addresses only (unless WEBHOOKS_ALLOW_PRIVATE), so an account cannot
// make the studio call its own network (decisions 032 and 163).
//
// Every textual form of an address is read once, by the WHATWG URL parser (decimal, octal, hex and
// short IPv4, percent-encoded and full-width digits, trailing dots all become the dotted quad), then
// judged by ipaddr.js's ranges with what they leave out added here. A name is resolved once, every
// answer must be public, and the connection goes to one of those checked answers (pinnedLookup): a
// DNS answer that changes between the check and the connect (rebinding) never reaches the socket.
import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS'
  constructor(message: string) {
    super(message)
    this.name = 'BlockedAddressError'
  }
}

export type ResolvedAddress = { address: string; family: 4 | 6 }

/** How a name becomes addresses. The system's resolver by default; tests hand in their own. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true })
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

/** What the guard needs from its caller: whether private targets are allowed (WEBHOOKS_ALLOW_PRIVATE). */
export interface AddressPolicy extends AddressOverrides {
  allowPrivate: boolean
}

/**
 * What tests change, since they may send nothing past 127.0.0.1: the resolver (a fake DNS), and which
 * addresses count as public (a second loopback address standing in for the internet).
 */
export interface AddressOverrides {
  resolve?: Resolver
  isPublic?: (address: string) => boolean
}

// ipaddr.js calls anything outside its special-purpose list "unicast", which for IPv6 includes the
// unassigned space and the deprecated IPv4-compatible ::a.b.c.d (::7f00:1 is "unicast" to it). Only
// global unicast (2000::/3, RFC 4291) can be a public IPv6 destination.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')

/**
 * True only for public unicast addresses. Private, loopback, link-local, unique-local, site-local,
 * multicast, unspecified, broadcast, carrier-grade NAT, benchmarking, documentation and reserved
 * ranges are refused, and so is every IPv6 form that carries an IPv4 address inside (IPv4-compatible,
 * NAT64 both well-known and local, 6to4, Teredo, SIIT), except IPv4-mapped, judged as its IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  // A zone (fe80::1%eth0) only exists on non-global addresses.
  if (address.includes('%') || !ipaddr.isValid(address)) return false
  const parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast'
  const v6 = parsed as ipaddr.IPv6
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast'
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast'
}

/**
 * The host a URL names, as the resolver and the socket take it: brackets off an IPv6 literal, and a
 * name's trailing dot off (`localhost.` is `localhost`; the URL parser already drops an IPv4's).
 */
export function urlHost(url: URL): string {
  const host = url.hostname
  if (host.startsWith('[') && host.endsWith(']')) return host.slice(1, -1)
  return host.replace(/\.+$/, '')
}

/** Names that mean this machine whatever DNS says (RFC 6761): refused without asking anyone. */
function isLocalName(host: string): boolean {
  const name = host.toLowerCase()
  return name === 'localhost' || name.endsWith('.localhost')
}

/**
 * The addresses a request to `url` may connect to: the IP literal itself, or every answer for the
 * name, each of them public (unless allowPrivate). Throws BlockedAddressError when any is not; a
 * name that cannot be resolved throws the resolver's error.
 */
export async function checkedAddresses(url: URL, policy: AddressPolicy): Promise<ResolvedAddress[]> {
  const host = urlHost(url)
  const isPublic = policy.isPublic ?? isPublicAddress
  const family = isIP(host)
  if (family) {
    if (!policy.allowPrivate && !isPublic(host)) throw new BlockedAddressError(`${host} is not a public address`)
    return [{ address: host, family: family as 4 | 6 }]
  }
  if (!policy.allowPrivate && isLocalName(host)) throw new BlockedAddressError(`${host} names this machine, which is not a public address`)
  const answers = await (policy.resolve ?? systemResolver)(host)
  if (answers.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' })
  if (!policy.allowPrivate) {
    const blocked = answers.find((a) => !isPublic(a.address))
    if (blocked) throw new BlockedAddressError(`${host} resolves to ${blocked.address}, which is not a public address`)
  }
  return answers
}

/**
 * A socket lookup that answers only with addresses checked beforehand, never asking DNS again: the
 * connection goes where the check looked. Honours the family asked for and `all` (Node's
 * happy-eyeballs connect asks for every address).
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0
    const usable = addresses.filter((a) => wanted === 0 || a.family === wanted)
    if (usable.length === 0) {
      const error = Object.assign(new Error(`${hostname} has no checked IPv${wanted} address`), { code: 'ENOTFOUND' })
      return callback(error, '', 0)
    }
    if (options.all) return (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, usable)
    callback(null, usable[0].address, usable[0].family)
  }
}

/**
 * An HTTP(S) request to `url` that can only connect to checked addresses: the host is checked (and
 * resolved once, within `resolveWithinMs`) first, then the request goes out with those addresses
 * pinned in its lookup. Not sent yet: the caller writes the body and ends it. Redirects are the
 * caller's: each hop is a new guardedRequest, so it is checked the same way.
 */
export async function guardedRequest(
  url: URL,
  options: http.RequestOptions,
  policy: AddressPolicy,
  resolveWithinMs: number,
): Promise<http.ClientRequest> {
  let timer: NodeJS.Timeout | undefined
  // getaddrinfo cannot be cancelled; past the caller's time limit the request simply stops waiting.
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${urlHost(url)} took longer than ${resolveWithinMs / 1000} s to resolve`)), resolveWithinMs)
  })
  const addresses = await Promise.race([checkedAddresses(url, policy), late]).finally(() => clearTimeout(timer))
  const client = url.protocol === 'https:' ? https : http
  // No shared agent: a kept-alive socket opened for another host's check must not be reused here.
  return client.request(url, { ...options, lookup: pinnedLookup(addresses), agent: false })
}
