// Multipart bodies as real clients write them, written out byte by byte, through the /api
// endpoints: every RFC 7578 / RFC 2045 form must be read, limits must stop the read early, and an
// animated image is used as its first frame whatever its format.
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { MEGABYTE } from '~/catalog/tools'
import { FIRST_FRAME_NOTE, TOO_MANY_PARTS_MESSAGE, UPLOAD_LIMITS } from '~/features/tools/upload.server'
import { action as blurAction } from '~/routes/api.face-blur.blur'
import { action as svgAction } from '~/routes/api.svg2image.convert'
import { animated, apng } from '../../../tests/support/animated'
import { BASE, readResult, routeArgs } from '../../../tests/support/requests'
import { balanceOf, newUser, newVisitor, randomIp, type TestCaller } from '../../../tests/support/tools'

const CRLF = '\r\n'
const square = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="#0a0"/></svg>'

interface Part {
  /** The Content-Disposition line's parameters after `form-data; `, exactly as sent. */
  disposition: string
  contentType?: string
  body: string | Buffer
}

/** A multipart body with the given boundary, each part's headers written by hand. */
function multipart(boundary: string, parts: Part[]): Buffer {
  const pieces: Buffer[] = []
  for (const part of parts) {
    let head = `--${boundary}${CRLF}Content-Disposition: form-data; ${part.disposition}${CRLF}`
    if (part.contentType) head += `Content-Type: ${part.contentType}${CRLF}`
    pieces.push(Buffer.from(head + CRLF, 'utf8'), Buffer.from(part.body), Buffer.from(CRLF))
  }
  pieces.push(Buffer.from(`--${boundary}--${CRLF}`))
  return Buffer.concat(pieces)
}

/** A body that counts what the server actually pulled from it, in chunks of `chunkSize`. */
function countedStream(bytes: Buffer, chunkSize = 64 * 1024): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let offset = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close()
      const end = Math.min(bytes.length, offset + chunkSize)
      controller.enqueue(new Uint8Array(bytes.subarray(offset, end)))
      offset = end
    },
  })
  return { stream, pulled: () => offset }
}

function rawRequest(path: string, contentType: string, body: Buffer | ReadableStream<Uint8Array>, caller: TestCaller | null): Request {
  const headers = new Headers({ 'x-facet-client-ip': randomIp(), ...(caller?.headers ?? {}) })
  headers.set('content-type', contentType)
  return new Request(BASE + path, { method: 'POST', headers, body, duplex: 'half' } as RequestInit)
}

async function convertRaw(user: TestCaller, contentType: string, body: Buffer | ReadableStream<Uint8Array>) {
  return readResult(await svgAction(routeArgs(rawRequest('/api/svg2image/convert/', contentType, body, user))))
}

async function blurRaw(caller: TestCaller, contentType: string, body: Buffer | ReadableStream<Uint8Array>) {
  return readResult(await blurAction(routeArgs(rawRequest('/api/face-blur/blur/', contentType, body, caller))))
}

const svgParts = (disposition: string, contentType: string | undefined = 'image/svg+xml'): Part[] => [
  { disposition, contentType, body: square },
  { disposition: 'name="format"', body: 'png' },
  { disposition: 'name="scale"', body: '1' },
]

/** The download name the server derived from the uploaded file's name (UTF-8 form). */
function downloadName(headers: Headers): string {
  const match = /filename\*=UTF-8''([^;]+)/.exec(headers.get('content-disposition') ?? '')
  return match ? decodeURIComponent(match[1]!) : ''
}

describe('multipart forms every client may send', () => {
  const forms: { label: string; contentType: (b: string) => string; disposition: string; contentTypeOfFile?: string; expected: string }[] = [
    {
      label: 'a quoted boundary, as .NET HttpClient sends it',
      contentType: (b) => `multipart/form-data; boundary="${b}"`,
      disposition: 'name="svg"; filename="logo.svg"',
      expected: 'logo.png',
    },
    {
      label: 'a capitalised media type and parameter name',
      contentType: (b) => `Multipart/Form-Data; Boundary=${b}`,
      disposition: 'name="svg"; filename="logo.svg"',
      expected: 'logo.png',
    },
    {
      label: 'a charset before the boundary',
      contentType: (b) => `multipart/form-data; charset=utf-8; boundary=${b}`,
      disposition: 'name="svg"; filename="logo.svg"',
      expected: 'logo.png',
    },
    {
      label: 'a file name with a semicolon',
      contentType: (b) => `multipart/form-data; boundary=${b}`,
      disposition: 'name="svg"; filename="summer; beach.svg"',
      expected: 'summer; beach.png',
    },
    {
      label: 'a file name with = and escaped quotes',
      contentType: (b) => `multipart/form-data; boundary=${b}`,
      disposition: 'name="svg"; filename="a=b \\"quoted\\".svg"',
      // Read whole; the download name then drops characters no file system takes (quotes).
      expected: 'a=b quoted.png',
    },
    {
      label: 'a non-ASCII file name in raw UTF-8, as browsers send it',
      contentType: (b) => `multipart/form-data; boundary=${b}`,
      disposition: 'name="svg"; filename="été à Zürich.svg"',
      expected: 'été à Zürich.png',
    },
    {
      label: 'a non-ASCII file name as filename* (RFC 5987)',
      contentType: (b) => `multipart/form-data; boundary=${b}`,
      disposition: `name="svg"; filename="ete.svg"; filename*=UTF-8''%C3%A9t%C3%A9.svg`,
      expected: 'été.png',
    },
    {
      label: 'a file part with no Content-Type',
      contentType: (b) => `multipart/form-data; boundary=${b}`,
      disposition: 'name="svg"; filename="plain.svg"',
      contentTypeOfFile: '',
      expected: 'plain.png',
    },
    {
      label: 'a file name with a path: only its last segment is kept, as display data',
      contentType: (b) => `multipart/form-data; boundary=${b}`,
      disposition: 'name="svg"; filename="../../etc/passwd.svg"',
      expected: 'passwd.png',
    },
  ]

  for (const form of forms) {
    it(`reads ${form.label}`, async () => {
      const user = await newUser()
      const before = await balanceOf(user)
      const boundary = '----WebKitFormBoundary7MA4YWxkTrZu0gW'
      const body = multipart(boundary, svgParts(form.disposition, form.contentTypeOfFile === '' ? undefined : 'image/svg+xml'))
      const answer = await convertRaw(user, form.contentType(boundary), body)
      expect(answer.status, JSON.stringify(answer.body instanceof ArrayBuffer ? '' : answer.body)).toBe(200)
      expect(answer.headers.get('content-type')).toBe('image/png')
      expect(downloadName(answer.headers)).toBe(form.expected)
      const { width, height } = await sharp(Buffer.from(answer.body as ArrayBuffer)).metadata()
      expect([width, height]).toEqual([20, 10])
      expect(await balanceOf(user)).toBe(before - 1)
    })
  }

  it('a boundary with spaces and punctuation, quoted, is read too', async () => {
    const user = await newUser()
    const boundary = "--- odd boundary '()+_,-./:=?"
    const answer = await convertRaw(user, `multipart/form-data; boundary="${boundary}"`, multipart(boundary, svgParts('name="svg"; filename="x.svg"')))
    expect(answer.status).toBe(200)
  })
})

describe('limits that stop the read early', () => {
  it('a 12 MB body of one-byte fields is refused after the first few parts, without reading the rest', async () => {
    const visitor = await newVisitor()
    const boundary = 'tiny'
    const part: Part = { disposition: 'name="f"', body: 'x' }
    const partBytes = multipart(boundary, [part, part]).length - multipart(boundary, [part]).length
    const body = multipart(boundary, Array.from({ length: Math.ceil((12 * MEGABYTE) / partBytes) }, () => part))
    expect(body.length).toBeGreaterThan(11 * MEGABYTE)
    const counted = countedStream(body)
    const answer = await blurRaw(visitor, `multipart/form-data; boundary=${boundary}`, counted.stream)
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({ error: TOO_MANY_PARTS_MESSAGE, detail: TOO_MANY_PARTS_MESSAGE, remaining: 5 })
    // Refused within the first chunks, never the whole 12 MB.
    expect(counted.pulled()).toBeLessThan(1 * MEGABYTE)
    expect(await balanceOf(visitor)).toBe(5)
  })

  it('a streamed body over the tool limit (no Content-Length) answers 413 once the real bytes pass the cap', async () => {
    const visitor = await newVisitor()
    const boundary = 'big'
    const body = multipart(boundary, [{ disposition: 'name="image"; filename="big.png"', contentType: 'image/png', body: Buffer.alloc(40 * MEGABYTE) }])
    const counted = countedStream(body)
    const answer = await blurRaw(visitor, `multipart/form-data; boundary=${boundary}`, counted.stream)
    expect(answer.status).toBe(413)
    expect(answer.body).toEqual({ error: 'File too large (max 15MB)', detail: 'File too large (max 15MB)', remaining: 5 })
    expect(counted.pulled()).toBeLessThan(16 * MEGABYTE + 256 * 1024)
  })

  it('an option field longer than the field limit is refused with its name', async () => {
    const visitor = await newVisitor()
    const body = multipart('b', [{ disposition: 'name="blur"', body: '2'.repeat(UPLOAD_LIMITS.fieldBytes + 1) }])
    const answer = await blurRaw(visitor, 'multipart/form-data; boundary=b', body)
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({ error: 'The field "blur" is too long.', detail: 'The field "blur" is too long.', remaining: 5 })
  })

  it('a body cut off before its closing boundary, and one without a boundary, are 400 with a clear message', async () => {
    const visitor = await newVisitor()
    const whole = multipart('b', [{ disposition: 'name="image"; filename="a.png"', body: 'x'.repeat(1000) }])
    const truncated = await blurRaw(visitor, 'multipart/form-data; boundary=b', whole.subarray(0, 500))
    expect(truncated.status).toBe(400)
    expect(truncated.body.error).toBe('The upload could not be read: send a multipart/form-data body.')
    const noBoundary = await blurRaw(visitor, 'multipart/form-data', whole)
    expect(noBoundary.status).toBe(400)
    expect(noBoundary.body.error).toBe('The upload could not be read: send a multipart/form-data body.')
    expect(await balanceOf(visitor)).toBe(5)
  })
})

describe('animated images: one rule for every format', () => {
  const imagePart = (bytes: Buffer, name: string): Part[] => [
    { disposition: `name="image"; filename="${name}"`, contentType: 'application/octet-stream', body: bytes },
    { disposition: 'name="blur"', body: '20' },
  ]

  for (const [label, make] of [
    ['an APNG', () => apng(64, 48, '#c00', '#00c')],
    ['an animated WebP', () => animated('webp', 64, 48, '#c00', '#00c')],
  ] as const) {
    it(`${label} is used as its first frame, with the note`, async () => {
      const visitor = await newVisitor()
      const answer = await blurRaw(visitor, 'multipart/form-data; boundary=b', multipart('b', imagePart(await make(), 'moving')))
      expect(answer.status).toBe(200)
      expect(answer.headers.get('X-Facet-Note')).toContain(FIRST_FRAME_NOTE)
      const { data, info } = await sharp(Buffer.from(answer.body as ArrayBuffer)).raw().toBuffer({ resolveWithObject: true })
      expect([info.width, info.height]).toEqual([64, 48])
      // The first frame's red, not the second's blue.
      expect([data[0], data[1], data[2]]).toEqual([204, 0, 0])
    })
  }

  it('a GIF, animated or not, is refused by the type rule for a tool that does not take GIF', async () => {
    const visitor = await newVisitor()
    const answer = await blurRaw(visitor, 'multipart/form-data; boundary=b', multipart('b', imagePart(await animated('gif', 64, 48, '#c00', '#00c'), 'a.gif')))
    expect(answer.status).toBe(415)
    expect(answer.body.error).toBe('Invalid file type. Upload a PNG, JPG or WebP image.')
  })

  it('a still PNG carries no note', async () => {
    const visitor = await newVisitor()
    const still = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#123456' } }).png().toBuffer()
    const answer = await blurRaw(visitor, 'multipart/form-data; boundary=b', multipart('b', imagePart(still, 'still.png')))
    expect(answer.status).toBe(200)
    expect(answer.headers.get('X-Facet-Note')).toBeNull()
  })
})
