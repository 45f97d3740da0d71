// The malformed-input corpus (decision 172): generated here, never stored. sharp writes the well-formed
// odd files (CMYK, 16-bit, grey, palette, animated, progressive, every EXIF orientation, multi-page TIFF);
// the broken ones are written as bytes (truncations, wrong magic bytes, headers claiming 60000×60000,
// broken and oversized ICC profiles, hostile SVGs).
import { crc32, deflateSync } from 'node:zlib'
import sharp, { type Sharp } from 'sharp'
import { animated, apng } from './animated'
import { pngChunk } from './png'

export interface CorpusFile {
  label: string
  bytes: Buffer
  name: string
  /** 'ok': a correct result is owed; 'refused': a 4xx is; 'either': a result or a 4xx (a file some readers accept). */
  expect: 'ok' | 'refused' | 'either'
  /** The container, for choosing the tools that accept it. */
  format: 'png' | 'jpeg' | 'webp' | 'gif' | 'tiff' | 'svg' | 'text'
}

const W = 24
const H = 16
const base = () => sharp({ create: { width: W, height: H, channels: 3, background: '#3a7' } })

/** A PNG whose IHDR claims width×height, with its CRC rewritten so only the size is a lie. */
function pngClaiming(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png)
  out.writeUInt32BE(width, 16)
  out.writeUInt32BE(height, 20)
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29)
  return out
}

/** Inserts a chunk right after IHDR (ancillary chunks such as iCCP go there). */
function pngWithChunk(png: Buffer, type: string, data: Buffer): Buffer {
  return Buffer.concat([png.subarray(0, 33), pngChunk(type, data), png.subarray(33)])
}

/** A JPEG whose first SOF claims width×height. */
function jpegClaiming(jpeg: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(jpeg)
  for (let at = 2; at + 9 < out.length; ) {
    const marker = out[at + 1]!
    if (marker >= 0xc0 && marker <= 0xc2) {
      out.writeUInt16BE(height, at + 5)
      out.writeUInt16BE(width, at + 7)
      return out
    }
    at += 2 + out.readUInt16BE(at + 2)
  }
  throw new Error('no SOF')
}

/** A JPEG carrying an ICC profile in APP2 segments (split at 65519 bytes each, as the format requires). */
function jpegWithIcc(jpeg: Buffer, profile: Buffer): Buffer {
  const pieces: Buffer[] = []
  const size = 65519
  const count = Math.ceil(profile.length / size)
  for (let i = 0; i < count; i++) {
    const body = Buffer.concat([Buffer.from('ICC_PROFILE\0', 'latin1'), Buffer.from([i + 1, count]), profile.subarray(i * size, (i + 1) * size)])
    const head = Buffer.from([0xff, 0xe2, 0, 0])
    head.writeUInt16BE(body.length + 2, 2)
    pieces.push(head, body)
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...pieces, jpeg.subarray(2)])
}

/** A profile header that says 'mntr RGB XYZ acsp' with its declared size, then noise. */
function junkIccProfile(size: number): Buffer {
  const profile = Buffer.alloc(size, 0x5a)
  profile.writeUInt32BE(size, 0)
  profile.write('mntrRGB XYZ ', 12, 'latin1')
  profile.write('acsp', 36, 'latin1')
  return profile
}

/** The upright test picture: a red block in the top-left corner, white elsewhere. */
export const uprightMarker = () =>
  sharp({ create: { width: W, height: H, channels: 3, background: '#fff' } })
    .composite([{ input: { create: { width: 6, height: 4, channels: 3, background: '#f00' } }, left: 0, top: 0 }])
    .removeAlpha()
    .png()
    .toBuffer()

const TRANSFORMS: Array<(s: Sharp) => Sharp> = [0, 90, 180, 270].flatMap((angle) => [
  (s: Sharp) => s.rotate(angle),
  (s: Sharp) => s.rotate(angle).flop(),
])

/** A JPEG stored so that its EXIF orientation `orientation` shows the upright marker picture. */
async function oriented(orientation: number): Promise<Buffer> {
  const upright = await sharp(await uprightMarker()).raw().toBuffer()
  for (const transform of TRANSFORMS) {
    const stored = await transform(sharp(await uprightMarker())).png().toBuffer()
    const tagged = await sharp(stored).withMetadata({ orientation }).jpeg({ quality: 100 }).toBuffer()
    const shown = await sharp(tagged).rotate().raw().toBuffer({ resolveWithObject: true })
    if (shown.info.width !== W || shown.info.height !== H) continue
    // JPEG blurs the edges a little: the corner pixels decide.
    const at = (buf: Buffer, x: number, y: number) => buf[(y * W + x) * 3]! > 200 && buf[(y * W + x) * 3 + 1]! < 80
    if (at(shown.data, 1, 1) && !at(shown.data, W - 2, H - 2) && at(upright, 1, 1)) return tagged
  }
  throw new Error(`no stored form for orientation ${orientation}`)
}

export async function rasterCorpus(): Promise<CorpusFile[]> {
  const png = await base().png().toBuffer()
  const jpeg = await base().jpeg().toBuffer()
  const webp = await base().webp().toBuffer()
  const gif = await base().gif().toBuffer()
  const tiff = await base().tiff().toBuffer()
  const half = (b: Buffer) => b.subarray(0, Math.floor(b.length / 2))
  const files: CorpusFile[] = [
    { label: 'truncated PNG', bytes: half(png), name: 'cut.png', expect: 'refused', format: 'png' },
    { label: 'truncated JPEG', bytes: half(jpeg), name: 'cut.jpg', expect: 'refused', format: 'jpeg' },
    { label: 'truncated WebP', bytes: half(webp), name: 'cut.webp', expect: 'refused', format: 'webp' },
    { label: 'truncated TIFF', bytes: half(tiff), name: 'cut.tiff', expect: 'refused', format: 'tiff' },
    { label: 'PNG signature only', bytes: png.subarray(0, 8), name: 'sig.png', expect: 'refused', format: 'png' },
    { label: 'a PNG named .jpg', bytes: png, name: 'photo.jpg', expect: 'ok', format: 'png' },
    { label: 'a text file named .png', bytes: Buffer.from('hello, this is not a picture\n'), name: 'notes.png', expect: 'refused', format: 'text' },
    { label: 'PNG header claiming 60000×60000', bytes: pngClaiming(png, 60000, 60000), name: 'huge.png', expect: 'refused', format: 'png' },
    { label: 'JPEG SOF claiming 60000×60000', bytes: jpegClaiming(jpeg, 60000, 60000), name: 'huge.jpg', expect: 'refused', format: 'jpeg' },
    { label: 'PNG claiming 16384×1 then ending', bytes: pngClaiming(png, 16384, 1), name: 'wide.png', expect: 'refused', format: 'png' },
    // 6 MB of pixels claimed: more than a door that inflated only small PNGs would check.
    { label: 'PNG claiming 2000×1000 on a small picture\'s data', bytes: pngClaiming(png, 2000, 1000), name: 'large.png', expect: 'refused', format: 'png' },
    {
      label: 'PNG decompression bomb (10000×10000 of zeros)',
      bytes: await sharp({ create: { width: 10000, height: 10000, channels: 3, background: '#000' } }).greyscale().png({ compressionLevel: 9 }).toBuffer(),
      name: 'bomb.png',
      expect: 'refused',
      format: 'png',
    },
    { label: 'CMYK JPEG', bytes: await base().toColourspace('cmyk').jpeg().toBuffer(), name: 'cmyk.jpg', expect: 'ok', format: 'jpeg' },
    { label: '16-bit PNG', bytes: await base().toColourspace('rgb16').png().toBuffer(), name: 'deep.png', expect: 'ok', format: 'png' },
    { label: 'grey PNG', bytes: await base().greyscale().png().toBuffer(), name: 'grey.png', expect: 'ok', format: 'png' },
    {
      label: 'grey + alpha PNG',
      bytes: await sharp({ create: { width: W, height: H, channels: 4, background: { r: 90, g: 90, b: 90, alpha: 0.5 } } }).toColourspace('b-w').png().toBuffer(),
      name: 'grey-alpha.png',
      expect: 'ok',
      format: 'png',
    },
    {
      label: 'palette PNG with tRNS',
      bytes: await sharp({ create: { width: W, height: H, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.4 } } }).png({ palette: true }).toBuffer(),
      name: 'palette.png',
      expect: 'ok',
      format: 'png',
    },
    { label: 'progressive JPEG', bytes: await base().jpeg({ progressive: true }).toBuffer(), name: 'prog.jpg', expect: 'ok', format: 'jpeg' },
    { label: 'animated GIF', bytes: await animated('gif', W, H, '#f00', '#00f'), name: 'anim.gif', expect: 'ok', format: 'gif' },
    { label: 'animated WebP', bytes: await animated('webp', W, H, '#f00', '#00f'), name: 'anim.webp', expect: 'ok', format: 'webp' },
    { label: 'APNG', bytes: await apng(W, H, '#f00', '#00f'), name: 'anim.png', expect: 'ok', format: 'png' },
    {
      label: 'multi-page TIFF',
      bytes: await sharp(Buffer.concat([await base().raw().toBuffer(), await base().negate().raw().toBuffer()]), { raw: { width: W, height: H * 2, channels: 3, pageHeight: H } } as never)
        .tiff()
        .toBuffer(),
      name: 'pages.tiff',
      expect: 'ok',
      format: 'tiff',
    },
    {
      label: 'PNG with a broken ICC profile (iCCP of junk)',
      bytes: pngWithChunk(png, 'iCCP', Buffer.concat([Buffer.from('junk\0\0', 'latin1'), deflateSync(Buffer.from('this is no profile'))])),
      name: 'bad-icc.png',
      expect: 'either',
      format: 'png',
    },
    { label: 'JPEG with a broken ICC profile', bytes: jpegWithIcc(jpeg, junkIccProfile(600)), name: 'bad-icc.jpg', expect: 'either', format: 'jpeg' },
    { label: 'JPEG with a 1 MB ICC profile', bytes: jpegWithIcc(jpeg, junkIccProfile(1_000_000)), name: 'big-icc.jpg', expect: 'either', format: 'jpeg' },
    { label: 'GIF (not every tool takes it)', bytes: gif, name: 'still.gif', expect: 'either', format: 'gif' },
  ]
  for (let orientation = 1; orientation <= 8; orientation++) {
    files.push({ label: `EXIF orientation ${orientation}`, bytes: await oriented(orientation), name: `o${orientation}.jpg`, expect: 'ok', format: 'jpeg' })
  }
  return files
}

/** `loopback`: a listening http://127.0.0.1:port the test watches: no SVG may make the server request it. */
export function svgCorpus(loopback = 'http://127.0.0.1:1'): CorpusFile[] {
  const svg = (label: string, body: string, expect: CorpusFile['expect'] = 'either'): CorpusFile => ({ label, bytes: Buffer.from(body), name: 'x.svg', expect, format: 'svg' })
  const laughs =
    '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "lollollollollol">' +
    Array.from({ length: 9 }, (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${`&${String.fromCharCode(97 + i)};`.repeat(10)}">`).join('') +
    ']><svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><text y="10">&j;</text></svg>'
  return [
    svg('billion laughs', laughs),
    svg('external file:// image', '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20"><image href="file:///etc/passwd" width="20" height="20"/><image xlink:href="file:///etc/hostname" width="20" height="20"/></svg>'),
    svg('external http://127.0.0.1 image', `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><image href="${loopback}/x.png" width="20" height="20"/><use href="${loopback}/s.svg#a"/></svg>`),
    svg('external entity', '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><text y="10">&x;</text></svg>'),
    svg('script', '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20" onload="alert(1)"><script>alert(1)</script><rect width="20" height="20"/></svg>', 'ok'),
    svg('foreignObject', '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><foreignObject width="20" height="20"><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject><rect width="5" height="5"/></svg>', 'ok'),
    svg('huge viewBox, no size', '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1000000000 1000000000"><rect width="10" height="10"/></svg>'),
    svg('huge width and height', '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="10" height="10"/></svg>'),
    svg('negative and NaN size', '<svg xmlns="http://www.w3.org/2000/svg" width="-5" height="NaN" viewBox="0 0 -1 0"><rect width="10" height="10"/></svg>'),
    svg('truncated SVG', '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect wid', 'refused'),
    svg('not XML at all', 'GIF89a is not an SVG', 'refused'),
    svg('a PNG named .svg', '\x89PNG\r\n\x1a\n\0\0\0\rIHDR', 'refused'),
  ]
}
