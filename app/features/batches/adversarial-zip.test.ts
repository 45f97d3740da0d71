// Zip contents an attacker controls, read by the batch reader (readZipFiles) with the batch limits:
// names that climb out of a folder, sizes that lie in the headers, a zip inside the zip. No name
// reaches a path, no entry yields more bytes than it declared, and nothing is unpacked twice.
import { describe, expect, it } from 'vitest'
import { readZipFiles, type ZipLimits } from '~/features/batches/zip.server'
import { ToolError } from '~/features/jobs/errors.server'
import { zipOf } from '../../../tests/support/zip'

const LIMITS: ZipLimits = { maxFiles: 100, maxEntries: 1000, maxEntryBytes: 1024 * 1024, maxTotalBytes: 8 * 1024 * 1024 }

/** Rewrites every occurrence of `from` by `to` (same length): names and sizes yazl would never write. */
function patch(zip: Buffer, from: Buffer, to: Buffer): Buffer {
  expect(to.byteLength).toBe(from.byteLength)
  const out = Buffer.from(zip)
  let at = out.indexOf(from)
  expect(at).toBeGreaterThanOrEqual(0)
  while (at >= 0) {
    to.copy(out, at)
    at = out.indexOf(from, at + from.byteLength)
  }
  return out
}

async function outcome(zip: Buffer): Promise<{ files: Awaited<ReturnType<typeof readZipFiles>>['files'] } | { status: number }> {
  try {
    return { files: (await readZipFiles(zip, LIMITS)).files }
  } catch (error) {
    if (error instanceof ToolError) return { status: error.status }
    throw error
  }
}

describe('zip contents from outside', () => {
  it('names that climb out (../, absolute, backslashes) are refused or kept as base names only', async () => {
    const png = Buffer.from('not really a png')
    const names: Array<[string, string]> = [
      ['AAAAAAevil.png', '../../'],
      ['Aetc-passwd.png', '/'],
      ['AAAAAAwin.png', '..\\..\\'],
    ]
    for (const [placeholder, climb] of names) {
      const zip = patch(await zipOf([{ name: placeholder, bytes: png }]), Buffer.from(placeholder), Buffer.from(climb + placeholder.slice(climb.length)))
      const read = await outcome(zip)
      if ('status' in read) expect(read.status).toBe(400)
      else for (const file of read.files) expect(file.name).not.toMatch(/[\\/]|\.\./)
    }
  })

  it('an entry whose headers claim fewer bytes than it inflates to is refused, never read past its claim', async () => {
    const real = 4 * 1024 * 1024 // compresses to a few KB
    const zip = await zipOf([{ name: 'big.png', bytes: Buffer.alloc(real) }])
    const claimed = Buffer.alloc(4)
    claimed.writeUInt32LE(100)
    const size = Buffer.alloc(4)
    size.writeUInt32LE(real)
    const read = await outcome(patch(zip, size, claimed))
    expect(read).toEqual({ status: 400 })
  })

  it('a zip inside the zip is one file, not unpacked again', async () => {
    const inner = await zipOf([{ name: 'a.png', bytes: Buffer.alloc(1024) }, { name: 'b.png', bytes: Buffer.alloc(1024) }])
    const read = await outcome(await zipOf([{ name: 'inner.zip', bytes: inner }]))
    expect('files' in read && read.files.map((f) => [f.name, f.bytes.byteLength])).toEqual([['inner.zip', inner.byteLength]])
  })

  it('bytes that are not a zip, and a zip cut in half, answer 400', async () => {
    expect(await outcome(Buffer.from('PK\u0003\u0004 this is not a zip'))).toEqual({ status: 400 })
    const zip = await zipOf([{ name: 'a.png', bytes: Buffer.alloc(4096, 7) }])
    expect(await outcome(zip.subarray(0, Math.floor(zip.byteLength / 2)))).toEqual({ status: 400 })
  })
})
