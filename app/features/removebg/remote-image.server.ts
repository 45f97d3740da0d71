// An image named by URL (remove.bg's image_url and bg_image_url), fetched by the server through the
// webhooks' address guard: public addresses only (unless WEBHOOKS_ALLOW_PRIVATE), each connection
// pinned to the address that was checked, every redirect's target checked the same way, the body cut
// off past the byte limit and the whole fetch past the time limit.
import type { ClientRequest } from 'node:http'
import { config } from '~/config.server'
import { BlockedAddressError, guardedRequest, type AddressOverrides } from '~/features/webhooks/address-guard.server'

export const REMOTE_IMAGE_TIMEOUT_MS = 10_000
export const REMOTE_IMAGE_MAX_REDIRECTS = 3
export const REMOTE_IMAGE_USER_AGENT = 'FacetStudio-ImageFetch/1'

/** Why a URL gave no image: said to the client as it is (it names the URL's problem, never our network). */
export class RemoteImageError extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message)
    this.name = 'RemoteImageError'
  }
}

function checkedUrl(raw: string, base?: URL): URL {
  let url: URL
  try {
    url = new URL(raw, base)
  } catch {
    throw new RemoteImageError('The image URL is not a valid URL.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RemoteImageError('The image URL must be http or https.')
  if (url.username || url.password) throw new RemoteImageError('The image URL must not carry a user name or password.')
  return url
}

type Hop = { redirect: string } | { bytes: Buffer }

function readableReason(error: unknown): RemoteImageError {
  if (error instanceof RemoteImageError) return error
  if (error instanceof BlockedAddressError) return new RemoteImageError(`The image URL does not lead to a public address (${error.message}).`)
  return new RemoteImageError(`The image URL could not be reached: ${(error as Error).message}`)
}

async function getOnce(url: URL, maxBytes: number, deadline: number, overrides?: AddressOverrides): Promise<Hop> {
  let request: ClientRequest
  try {
    const headers = { 'user-agent': REMOTE_IMAGE_USER_AGENT, accept: 'image/*' }
    const policy = { allowPrivate: config().WEBHOOKS_ALLOW_PRIVATE, ...overrides }
    request = await guardedRequest(url, { method: 'GET', headers }, policy, Math.max(0, deadline - Date.now()))
  } catch (error) {
    throw readableReason(error)
  }
  return new Promise<Hop>((resolveHop, reject) => {
    request.on('response', (response) => {
      const status = response.statusCode ?? 0
      if (status >= 300 && status < 400 && response.headers.location) {
        response.resume()
        return resolveHop({ redirect: response.headers.location })
      }
      if (status < 200 || status >= 300) {
        response.resume()
        return reject(new RemoteImageError(`The image URL answered HTTP ${status}.`))
      }
      const declared = Number(response.headers['content-length'] ?? '')
      if (Number.isFinite(declared) && declared > maxBytes) {
        response.destroy()
        return reject(new RemoteImageError(`The image at the URL is larger than ${maxBytes / 1_048_576} MB.`, true))
      }
      const chunks: Buffer[] = []
      let received = 0
      response.on('data', (chunk: Buffer) => {
        received += chunk.length
        if (received > maxBytes) {
          response.destroy()
          reject(new RemoteImageError(`The image at the URL is larger than ${maxBytes / 1_048_576} MB.`, true))
          return
        }
        chunks.push(chunk)
      })
      response.on('end', () => resolveHop({ bytes: Buffer.concat(chunks) }))
      response.on('error', (error) => reject(new RemoteImageError(`The image URL could not be read: ${error.message}`)))
    })
    const timer = setTimeout(() => request.destroy(new RemoteImageError('The image URL took too long to answer.')), Math.max(0, deadline - Date.now()))
    request.on('close', () => clearTimeout(timer))
    request.on('error', (error) => reject(readableReason(error)))
    request.end()
  })
}

/**
 * The bytes at `raw` (at most `maxBytes`), following at most REMOTE_IMAGE_MAX_REDIRECTS redirects,
 * each one checked as the first URL was. `overrides`: tests' fake DNS and stand-in public address.
 */
export async function fetchRemoteImage(raw: string, maxBytes: number, overrides?: AddressOverrides): Promise<Buffer> {
  const deadline = Date.now() + REMOTE_IMAGE_TIMEOUT_MS
  let url = checkedUrl(raw.trim())
  for (let hop = 0; hop <= REMOTE_IMAGE_MAX_REDIRECTS; hop++) {
    const answer = await getOnce(url, maxBytes, deadline, overrides)
    if ('bytes' in answer) {
      if (answer.bytes.byteLength === 0) throw new RemoteImageError('The image URL answered an empty body.')
      return answer.bytes
    }
    url = checkedUrl(answer.redirect, url)
  }
  throw new RemoteImageError(`The image URL redirected more than ${REMOTE_IMAGE_MAX_REDIRECTS} times.`)
}
