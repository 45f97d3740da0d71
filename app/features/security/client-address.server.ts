// The client address every per-address limit counts by. Express resolves it from the connection and,
// as far as TRUST_PROXY allows, from X-Forwarded-For (the entry the nearest untrusted hop reported);
// route code only sees a Fetch Request, so the server hands it over in a header it overwrites on
// every request: a value the client sent under that name never survives.
import type { RequestHandler } from 'express'

export const CLIENT_ADDRESS_HEADER = 'x-facet-client-ip'

export const passClientAddress: RequestHandler = (req, _res, next) => {
  req.headers[CLIENT_ADDRESS_HEADER] = req.ip ?? req.socket.remoteAddress ?? 'unknown'
  next()
}
