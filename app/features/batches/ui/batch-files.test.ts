import { describe, expect, it } from 'vitest'
import { MEGABYTE, TOOLS } from '~/catalog/tools'
import { batchProblem, checkBatchFile, totalsOf, ZIP_ALONE_MESSAGE, type ChosenFile } from './batch-files'

const limits = { maxFiles: 3, maxMegabytes: 2 }
const ready = (name: string, size: number, zip = false): ChosenFile => ({ key: name, file: new File([new Uint8Array(size)], name), state: 'ready', zip })
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

describe('the batch checks before sending', () => {
  it('counts only the files that passed their checks', () => {
    const files: ChosenFile[] = [ready('a.png', 10), { key: 'b', file: new File(['x'], 'b.txt'), state: 'refused', message: 'Invalid file type' }]
    expect(totalsOf(files)).toEqual({ count: 1, bytes: 10, zip: false })
  })

  it('names the first limit a batch passes: zip with files, count, total size, balance', () => {
    expect(batchProblem({ count: 2, bytes: 10, zip: true }, limits, 1, 10)).toBe(ZIP_ALONE_MESSAGE)
    expect(batchProblem({ count: 4, bytes: 10, zip: false }, limits, 1, 10)).toBe('A batch takes at most 100 files.')
    expect(batchProblem({ count: 2, bytes: 2 * MEGABYTE + 1, zip: false }, limits, 1, 10)).toBe('The batch is too large (max 2MB in all).')
    expect(batchProblem({ count: 3, bytes: 10, zip: false }, limits, 2, 5)).toBe(
      'Not enough credits: this batch of 3 files costs 6 credits and the balance of 5 covers 2 of them.',
    )
    expect(batchProblem({ count: 3, bytes: 10, zip: false }, limits, 2, 6)).toBeNull()
    // A zip's files are counted by the server, which checks the balance then.
    expect(batchProblem({ count: 1, bytes: 10, zip: true }, limits, 2, 0)).toBeNull()
    // An unknown balance is the server's to check.
    expect(batchProblem({ count: 3, bytes: 10, zip: false }, limits, 2, null)).toBeNull()
  })

  it("takes the chosen tool's files and zips, and refuses the rest with the workspace's words", async () => {
    const png = new File([new Uint8Array([...PNG, 0, 0])], 'a.png', { type: 'image/png' })
    expect(await checkBatchFile(TOOLS['background-remover'], png)).toMatchObject({ ok: true, zip: false })
    expect(await checkBatchFile(TOOLS['svg-converter'], png)).toEqual({ ok: false, message: 'Invalid file type: this is a PNG image. Choose an SVG file.' })
    const svg = new File(['<svg xmlns="http://www.w3.org/2000/svg"/>'], 'a.svg')
    expect(await checkBatchFile(TOOLS['svg-converter'], svg)).toMatchObject({ ok: true, zip: false })
    const zip = new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0])], 'many.zip')
    expect(await checkBatchFile(TOOLS['face-blurrer'], zip)).toMatchObject({ ok: true, zip: true })
  })
})
