// Counting a batch zip in the browser agrees with the server that reads it: the same files skipped,
// the same limits named in the same words, the same files taken by the tool, from zips as archivers
// write them (deflated or stored, with folders, hidden files and a comment). What cannot be read
// here is left uncounted, never guessed.
import { readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { TOO_MANY_FILES_MESSAGE } from '~/catalog/batches'
import { MEGABYTE, TOOLS } from '~/catalog/tools'
import { readZipFiles } from '../zip.server'
import { zipOf as zipBytes } from '../../../../tests/support/zip'
import { findDirectory, listZip, type ZipLimits } from './zip-listing'

const photo = (name: string) => readFileSync(`tests/fixtures/photos/${name}`)
const LIMITS: ZipLimits = { maxEntries: 1000, maxFiles: 100, maxFileBytes: 12 * MEGABYTE, maxTotalBytes: 200 * MEGABYTE }
const remover = TOOLS['background-remover']

/** The zip as the page gets it: a Blob. */
const zipOf = async (...args: Parameters<typeof zipBytes>) => new Blob([new Uint8Array(await zipBytes(...args))])

/** What the server makes of the same zip: its files, or the message it refuses the zip with. */
async function serverReads(zip: Blob, limits: ZipLimits): Promise<number | string> {
  const bytes = Buffer.from(await zip.arrayBuffer())
  const maxLimits = { maxFiles: limits.maxFiles, maxEntries: limits.maxEntries, maxEntryBytes: limits.maxFileBytes, maxTotalBytes: limits.maxTotalBytes }
  return readZipFiles(bytes, maxLimits).then(
    (contents) => contents.files.length,
    (error: Error) => error.message,
  )
}

describe('counting a batch zip before it is sent', () => {
  it('takes the images, deflated or stored, under folders too, and skips folders and hidden files as the server does', async () => {
    const zip = await zipOf(
      [
        { name: 'shoot/' },
        // Real photos are larger than the part inflated to sniff them: their inflating is cut short.
        { name: 'shoot/rocket.jpg', bytes: photo('noface-rocket.jpg') },
        { name: 'router.png', bytes: photo('product-router-alpha-groundtruth.png'), compress: false },
        { name: 'shoot\\gameboy.jpg', bytes: photo('product-gameboy-white-bg.jpg') },
        { name: '__MACOSX/shoot/._rocket.jpg', bytes: Buffer.from('resource fork') },
        { name: '.DS_Store', bytes: Buffer.from('finder') },
        { name: 'notes.txt', bytes: Buffer.from('not an image') },
      ],
      { comment: 'made by an archiver, with a comment after the directory' },
    )
    // Four files of the batch (the notes fail at once on the server, uncharged); three the tool takes.
    expect(await listZip(zip, remover, LIMITS)).toEqual({ runnable: 3, problem: null })
    expect(await serverReads(zip, LIMITS)).toBe(4)
    // The SVG converter takes none of them.
    expect(await listZip(zip, TOOLS['svg-converter'], LIMITS)).toEqual({ runnable: 0, problem: null })
  })

  it('names the limit the server would refuse the whole zip for, in its words', async () => {
    const four = await zipOf(['a', 'b', 'c', 'd'].map((stem) => ({ name: `${stem}.jpg`, bytes: photo('noface-rocket.jpg') })))
    const tight = { ...LIMITS, maxFiles: 3 }
    expect(await listZip(four, remover, tight)).toEqual({ runnable: 0, problem: TOO_MANY_FILES_MESSAGE })
    expect(await serverReads(four, tight)).toBe(TOO_MANY_FILES_MESSAGE)
    // Entries of any kind: folders and hidden files count.
    const crowded = await zipOf([{ name: 'a/' }, { name: 'b/' }, { name: '.hidden', bytes: Buffer.from('x') }, { name: 'a/ok.jpg', bytes: photo('noface-rocket.jpg') }])
    const fewEntries = { ...LIMITS, maxEntries: 3 }
    expect(await listZip(crowded, remover, fewEntries)).toEqual({ runnable: 0, problem: 'The zip has too many entries (at most 3).' })
    expect(await serverReads(crowded, fewEntries)).toBe('The zip has too many entries (at most 3).')
    expect(await listZip(crowded, remover, { ...fewEntries, maxEntries: 4 })).toEqual({ runnable: 1, problem: null })

    // Sizes once inflated: 13 MB of one colour deflates to almost nothing.
    const big = await zipOf([{ name: 'ok.jpg', bytes: photo('noface-rocket.jpg') }, { name: 'scans/huge.png', bytes: Buffer.alloc(13 * MEGABYTE) }])
    expect(await listZip(big, remover, LIMITS)).toEqual({ runnable: 0, problem: 'huge.png is too large once unzipped.' })
    expect(await serverReads(big, LIMITS)).toBe('huge.png is too large once unzipped.')
    const small = { ...LIMITS, maxTotalBytes: photo('noface-rocket.jpg').length * 2 - 1 }
    expect(await listZip(four, remover, small)).toEqual({ runnable: 0, problem: 'The zip is too large once unzipped.' })
    expect(await serverReads(four, small)).toBe('The zip is too large once unzipped.')
  })

  it('leaves to the server what it cannot read here: no directory, a damaged one, ZIP64, an encrypted entry, a damaged entry, no inflater', async () => {
    expect(await listZip(new Blob([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0])]), remover, LIMITS)).toBeNull()
    const zip = new Uint8Array(await (await zipOf([{ name: 'a.jpg', bytes: photo('noface-rocket.jpg') }])).arrayBuffer())
    const place = findDirectory(zip)!
    expect(place).toMatchObject({ entries: 1, offset: expect.any(Number), size: expect.any(Number) })

    const damaged = zip.slice()
    damaged[place.offset] = 0
    expect(await listZip(new Blob([damaged]), remover, LIMITS)).toBeNull()

    const zip64 = await zipOf([{ name: 'a.jpg', bytes: photo('noface-rocket.jpg') }], { forceZip64Format: true })
    expect(await listZip(zip64, remover, LIMITS)).toBeNull()
    expect(await serverReads(zip64, LIMITS)).toBe(1)

    const encrypted = zip.slice()
    const flags = new DataView(encrypted.buffer)
    flags.setUint16(place.offset + 8, flags.getUint16(place.offset + 8, true) | 1, true)
    expect(await listZip(new Blob([encrypted]), remover, LIMITS)).toBeNull()

    // One entry that cannot be read leaves the whole zip uncounted, never counted as holding nothing.
    const badLocal = zip.slice()
    badLocal[0] = 0
    expect(await listZip(new Blob([badLocal]), remover, LIMITS)).toBeNull()
    vi.stubGlobal('DecompressionStream', undefined)
    try {
      expect(await listZip(new Blob([zip]), remover, LIMITS)).toBeNull()
    } finally {
      vi.unstubAllGlobals()
    }
    expect(await listZip(new Blob([zip]), remover, LIMITS)).toEqual({ runnable: 1, problem: null })
  })
})
