// Fetching an image named by URL: only http(s), no credentials, private addresses refused (IP
// literals and names alike) unless WEBHOOKS_ALLOW_PRIVATE, the byte limit enforced while reading
// (declared or not), redirects followed a few times only.
import http from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { fetchRemoteImage, REMOTE_IMAGE_MAX_REDIRECTS, RemoteImageError } from './remote-image.server'

let server: http.Server
const PORT = 4531
const base = `http://127.0.0.1:${PORT}`

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? '/'
    if (url === '/small') return void res.end(Buffer.alloc(100, 1))
    if (url === '/big-declared') return void res.writeHead(200, { 'content-length': '5000' }).end(Buffer.alloc(5000))
    if (url === '/big-chunked') {
      res.writeHead(200)
      res.write(Buffer.alloc(3000))
      return void res.end(Buffer.alloc(3000))
    }
    if (url.startsWith('/hop/')) {
      const left = Number(url.slice(5))
      return void res.writeHead(302, { location: left > 0 ? `/hop/${left - 1}` : '/small' }).end()
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(PORT, '127.0.0.1', resolve))
})

afterAll(() => new Promise((resolve) => server.close(resolve)))

function allowPrivate(allowed: boolean) {
  process.env.WEBHOOKS_ALLOW_PRIVATE = String(allowed)
  resetConfigForTests()
}

afterEach(() => {
  delete process.env.WEBHOOKS_ALLOW_PRIVATE
  resetConfigForTests()
})

describe('fetchRemoteImage', () => {
  it('refuses private addresses, as IP literals and as names that resolve to them', async () => {
    allowPrivate(false)
    await expect(fetchRemoteImage(`${base}/small`, 1000)).rejects.toThrow(/not a public address/)
    await expect(fetchRemoteImage(`http://localhost:${PORT}/small`, 1000)).rejects.toThrow(/public address/)
    await expect(fetchRemoteImage('http://[::1]/x', 1000)).rejects.toThrow(/not a public address/)
  })

  it('refuses other schemes and URLs with credentials', async () => {
    allowPrivate(true)
    await expect(fetchRemoteImage('file:///etc/passwd', 1000)).rejects.toThrow('The image URL must be http or https.')
    await expect(fetchRemoteImage(`http://user:secret@127.0.0.1:${PORT}/small`, 1000)).rejects.toThrow(/user name or password/)
    await expect(fetchRemoteImage('not a url', 1000)).rejects.toThrow('The image URL is not a valid URL.')
  })

  it('reads a body within the limit and cuts off one past it, declared or not', async () => {
    allowPrivate(true)
    expect((await fetchRemoteImage(`${base}/small`, 1000)).byteLength).toBe(100)
    const declared = await fetchRemoteImage(`${base}/big-declared`, 1000).catch((e: unknown) => e)
    expect(declared).toBeInstanceOf(RemoteImageError)
    expect((declared as RemoteImageError).tooLarge).toBe(true)
    const chunked = await fetchRemoteImage(`${base}/big-chunked`, 4000).catch((e: unknown) => e)
    expect((chunked as RemoteImageError).tooLarge).toBe(true)
  })

  it('follows a few redirects and no more, and says why a URL gave no image', async () => {
    allowPrivate(true)
    expect((await fetchRemoteImage(`${base}/hop/${REMOTE_IMAGE_MAX_REDIRECTS - 1}`, 1000)).byteLength).toBe(100)
    await expect(fetchRemoteImage(`${base}/hop/${REMOTE_IMAGE_MAX_REDIRECTS}`, 1000)).rejects.toThrow(/redirected more than/)
    await expect(fetchRemoteImage(`${base}/missing`, 1000)).rejects.toThrow('The image URL answered HTTP 404.')
  })
})
