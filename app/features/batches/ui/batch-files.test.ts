import { describe, expect, it } from 'vitest'
import { MEGABYTE, TOOLS } from '~/catalog/tools'
import { zipOf } from '../../../../tests/support/zip'
import { ZIP_ALONE_MESSAGE } from '~/catalog/batches'
import { batchProblem, checkBatchFile, totalsOf, zipWithoutFilesMessage, type ChosenFile } from './batch-files'

const limits = { maxFiles: 3, maxMegabytes: 2 }
const ready = (name: string, size: number, runs: number | null = 1, zip = false): ChosenFile => ({ key: name, file: new File([new Uint8Array(size)], name), state: 'ready', zip, runs })
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

describe('the batch checks before sending', () => {
  it('counts only the files that passed their checks', () => {
    const files: ChosenFile[] = [ready('a.png', 10), { key: 'b', file: new File(['x'], 'b.txt'), state: 'refused', message: 'Invalid file type' }]
    expect(totalsOf(files)).toEqual({ chosen: 1, count: 1, bytes: 10, zip: false })
  })

  it("counts a zip's runs as counted here, and leaves a zip not counted here to the server", () => {
    expect(totalsOf([ready('photos.zip', 10, 3, true)])).toEqual({ chosen: 1, count: 3, bytes: 10, zip: true })
    expect(totalsOf([ready('a.png', 5), ready('photos.zip', 10, null, true)])).toEqual({ chosen: 2, count: null, bytes: 15, zip: true })
  })

  it('names the first limit a batch passes: zip with files, count, total size, balance', () => {
    const plain = (count: number, bytes = 10) => ({ chosen: count, count, bytes, zip: false })
    expect(batchProblem({ chosen: 2, count: 4, bytes: 10, zip: true }, limits, 1, 10)).toBe(ZIP_ALONE_MESSAGE)
    expect(batchProblem(plain(4), limits, 1, 10)).toBe('A batch takes at most 100 files.')
    expect(batchProblem(plain(2, 2 * MEGABYTE + 1), limits, 1, 10)).toBe('The batch is too large (max 2MB in all).')
    expect(batchProblem(plain(3), limits, 2, 5)).toBe('Not enough credits: this batch of 3 files costs 6 credits and the balance of 5 covers 2 of them.')
    expect(batchProblem(plain(3), limits, 2, 6)).toBeNull()
    // A zip counted here is priced as listed files are; its own limits were checked when it was chosen.
    expect(batchProblem({ chosen: 1, count: 3, bytes: 10, zip: true }, limits, 2, 5)).toBe(
      'Not enough credits: this batch of 3 files costs 6 credits and the balance of 5 covers 2 of them.',
    )
    // A zip not counted here is priced by the server, which checks the balance then.
    expect(batchProblem({ chosen: 1, count: null, bytes: 10, zip: true }, limits, 2, 0)).toBeNull()
    // An unknown balance is the server's to check.
    expect(batchProblem(plain(3), limits, 2, null)).toBeNull()
  })

  it("takes the chosen tool's files and zips, and refuses the rest with the workspace's words", async () => {
    const png = new File([new Uint8Array([...PNG, 0, 0])], 'a.png', { type: 'image/png' })
    expect(await checkBatchFile(TOOLS['background-remover'], png, limits)).toMatchObject({ ok: true, zip: false })
    expect(await checkBatchFile(TOOLS['svg-converter'], png, limits)).toEqual({ ok: false, message: 'Invalid file type: this is a PNG image. Choose an SVG file.' })
    const svg = new File(['<svg xmlns="http://www.w3.org/2000/svg"/>'], 'a.svg')
    expect(await checkBatchFile(TOOLS['svg-converter'], svg, limits)).toMatchObject({ ok: true, zip: false })
    // A zip is counted here (zip-listing.test.ts has the rest); one with nothing for the tool is not sent.
    const photos = await zipOf([{ name: 'a.png', bytes: Buffer.from([...PNG, 0, 0]) }, { name: 'notes.txt', bytes: Buffer.from('text') }])
    const counted = new File([new Uint8Array(photos)], 'photos.zip')
    expect(await checkBatchFile(TOOLS['background-remover'], counted, limits)).toEqual({ ok: true, file: counted, zip: true, runs: 1 })
    expect(await checkBatchFile(TOOLS['svg-converter'], counted, limits)).toEqual({ ok: false, message: 'The zip holds no SVG files.' })
    expect(zipWithoutFilesMessage(TOOLS['face-blurrer'])).toBe('The zip holds no PNG, JPG or WebP images.')
    // A zip this page cannot read is left to the server: sent, not counted.
    const zip = new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0])], 'many.zip')
    expect(await checkBatchFile(TOOLS['face-blurrer'], zip, limits)).toEqual({ ok: true, file: zip, zip: true, runs: null })
  })
})
