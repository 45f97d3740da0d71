// The client address every per-address limit counts by. Express resolves it from the connection and,
// as far as TRUST_PROXY allows, from X-Forwarded-For (the entry the nearest untrusted hop reported);
// route code only sees a Fetch Request, so the server hands it over in a header it overwrites on
// every request: a value the client sent under that name never survives.
import type { RequestHandler } from 'express'
import ipaddr from 'ipaddr.js'

export const CLIENT_ADDRESS_HEADER = 'x-facet-client-ip'

export const passClientAddress: RequestHandler = (req, _res, next) => {
  req.headers[CLIENT_ADDRESS_HEADER] = req.ip ?? req.socket.remoteAddress ?? 'unknown'
  next()
}

/**
 * The address a per-address budget counts by: an IPv4 address as it is (an IPv4-mapped IPv6 one
 * too), an IPv6 address by its /64, the smallest block one subscriber is given, so cycling through
 * the 2^64 addresses of one line gets no new budget. Anything unreadable counts as itself.
 */
export function addressGroup(address: string): string {
  if (!ipaddr.isValid(address)) return address
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4)
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toNormalizedString().replace(/(:0){4}$/, '::')}/64`
}
