// Fetching an image named by URL: only http(s), no credentials, private addresses refused (IP
// literals and names alike) unless WEBHOOKS_ALLOW_PRIVATE, the byte limit enforced while reading
// (declared or not), redirects followed a few times only.
import http from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { fetchRemoteImage, REMOTE_IMAGE_MAX_REDIRECTS, RemoteImageError } from './remote-image.server'

let server: http.Server
// 127.0.0.2 on the same port stands in for a public host (the tests' policy counts it as public).
let standIn: http.Server
const PORT = 4531
const base = `http://127.0.0.1:${PORT}`
let insideHits = 0

beforeAll(async () => {
  server = http.createServer((req, res) => {
    insideHits++
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
  standIn = http.createServer((req, res) => {
    if (req.url === '/to-inside') return void res.writeHead(302, { location: `${base}/small` }).end()
    if (req.url === '/to-inside-by-name') return void res.writeHead(307, { location: `http://inside.example:${PORT}/small` }).end()
    res.end(Buffer.alloc(10, 2))
  })
  await new Promise<void>((resolve) => standIn.listen(PORT, '127.0.0.2', resolve))
})

afterAll(() => Promise.all([server, standIn].map((s) => new Promise((resolve) => s.close(resolve)))))

/** Tests' DNS and public internet: names answer from the table, 127.0.0.2 counts as public. */
function overrides(table: Record<string, string[][]>) {
  const rounds = new Map<string, number>()
  return {
    isPublic: (address: string) => address === '127.0.0.2',
    resolve: async (hostname: string) => {
      const answers = table[hostname]
      if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
      const round = rounds.get(hostname) ?? 0
      rounds.set(hostname, round + 1)
      return answers[Math.min(round, answers.length - 1)].map((address) => ({ address, family: 4 as const }))
    },
  }
}

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

  it('checks every redirect hop as the first URL: a public host sending the fetch inside is refused', async () => {
    allowPrivate(false)
    const table = { 'images.example': [['127.0.0.2']], 'inside.example': [['127.0.0.1']] }
    expect((await fetchRemoteImage(`http://images.example:${PORT}/photo`, 1000, overrides(table))).byteLength).toBe(10)
    const before = insideHits
    await expect(fetchRemoteImage(`http://images.example:${PORT}/to-inside`, 1000, overrides(table))).rejects.toThrow(
      'The image URL does not lead to a public address (127.0.0.1 is not a public address).',
    )
    await expect(fetchRemoteImage(`http://images.example:${PORT}/to-inside-by-name`, 1000, overrides(table))).rejects.toThrow(
      /inside\.example resolves to 127\.0\.0\.1, which is not a public address/,
    )
    expect(insideHits).toBe(before)
  })

  it('connects to the address it checked, however DNS answers afterwards (rebinding)', async () => {
    allowPrivate(false)
    const before = insideHits
    const rebinding = overrides({ 'rebind.example': [['127.0.0.2'], ['127.0.0.1']] })
    expect((await fetchRemoteImage(`http://rebind.example:${PORT}/photo`, 1000, rebinding)).byteLength).toBe(10)
    await expect(fetchRemoteImage(`http://rebind.example:${PORT}/photo`, 1000, rebinding)).rejects.toThrow(/not a public address/)
    expect(insideHits).toBe(before)
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
