// Signed result links (issue 35 item 7, decision 174): a stored result's URL that works for whoever
// holds it, for a short while, without the cookie or key of the run. A script that ran with a key or a
// cookie jar can hand the link to curl, a browser or another machine. The signature is an HMAC-SHA256
// of the result id and the expiry under a key derived from the studio's session secret (domain-separated,
// so a link's MAC is never a valid cookie signature or the other way round).
import { createHmac, timingSafeEqual } from 'node:crypto'
import { config } from '~/config.server'
import { resultUrl } from './view'

/** How long a signed link opens its result (never past the result's own 24 hours: the row is gone by then). */
export const RESULT_LINK_TTL_SECONDS = 3600
export const EXPIRES_PARAM = 'expires'
export const SIGNATURE_PARAM = 'signature'

function linkKey(): Buffer {
  return createHmac('sha256', config().sessionSecret).update('facet-studio result links v1').digest()
}

function signatureOf(resultId: string, expires: number): Buffer {
  return createHmac('sha256', linkKey()).update(`${resultId}.${expires}`).digest()
}

/** `/api/results/<id>?expires=<unix seconds>&signature=<base64url>`: opens the result until `expires`. */
export function signedResultUrl(resultId: string, now: Date = new Date()): string {
  const expires = Math.floor(now.getTime() / 1000) + RESULT_LINK_TTL_SECONDS
  const signature = signatureOf(resultId, expires).toString('base64url')
  return `${resultUrl(resultId)}?${EXPIRES_PARAM}=${expires}&${SIGNATURE_PARAM}=${signature}`
}

export type LinkCheck = 'none' | 'valid' | 'expired' | 'forged'

/** What a request's signature says: none sent, good and current, good but past its expiry, or not ours. */
export function checkResultLink(resultId: string, params: URLSearchParams, now: Date = new Date()): LinkCheck {
  const signature = params.get(SIGNATURE_PARAM)
  const expiresText = params.get(EXPIRES_PARAM)
  if (signature === null && expiresText === null) return 'none'
  if (!signature || !expiresText || !/^\d{1,12}$/.test(expiresText)) return 'forged'
  const expires = Number(expiresText)
  const sent = Buffer.from(signature, 'base64url')
  const expected = signatureOf(resultId, expires)
  if (sent.byteLength !== expected.byteLength || !timingSafeEqual(sent, expected)) return 'forged'
  return expires * 1000 > now.getTime() ? 'valid' : 'expired'
}
