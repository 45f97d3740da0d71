// Where a webhook may be sent: public unicast addresses only (unless WEBHOOKS_ALLOW_PRIVATE), so an
// account cannot make the studio call its own network. The check runs on the address the
// connection really uses: the socket's lookup resolves, checks, and hands the checked address to
// connect, so a name that resolves to a public address when registered and a private one later
// (DNS rebinding) is refused at connect time.
import dns from 'node:dns'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS'
}

/**
 * True only for public unicast addresses. Private, loopback, link-local, unique-local, multicast,
 * unspecified, broadcast, carrier-grade NAT, reserved and documentation ranges are refused, and so
 * are IPv6 forms that carry an IPv4 address inside (IPv4-mapped, NAT64, 6to4, Teredo) unless the
 * IPv4 address itself is public (mapped) or cannot be judged (the others: refused).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  // process() turns ::ffff:a.b.c.d into a.b.c.d, so a mapped address is judged as the IPv4 it is.
  const parsed = ipaddr.process(address)
  return parsed.range() === 'unicast'
}

export function stripBrackets(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
}

/** A socket lookup that refuses non-public addresses (all of a name's addresses must be public). */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0)
      const list = addresses as dns.LookupAddress[]
      const blocked = list.find((a) => !isPublicAddress(a.address))
      if (!allowPrivate && blocked) {
        return callback(new BlockedAddressError(`${hostname} resolves to ${blocked.address}, which is not a public address`), '', 0)
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list)
      callback(null, list[0].address, list[0].family)
    })
  }
}

/** The addresses a URL's host stands for (an IP literal is itself). */
export async function resolveHost(hostname: string): Promise<string[]> {
  const host = stripBrackets(hostname)
  if (ipaddr.isValid(host)) return [host]
  const found = await dns.promises.lookup(host, { all: true })
  return found.map((a) => a.address)
}
