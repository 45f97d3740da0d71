// The batch zip's naming rule (decision 167): examples from the issue, then properties over any names
// (fast-check): the zip written is valid and reads back, every entry name is safe on Windows, macOS
// and Linux, names are unique as those systems compare them, and each maps back to its original.
import fc from 'fast-check'
import yauzl from 'yauzl'
import { describe, expect, it } from 'vitest'
import { MAX_ENTRY_NAME_BYTES, safeEntryName, safeUniqueEntryNames, storableName } from './entry-names'
import { writeZip } from './zip.server'

/** What makes a name unsafe somewhere, written out apart from the rule itself. */
function unsafeBecause(name: string): string | null {
  if (name === '' || name === '.' || name === '..') return 'empty or a dot name'
  if (/[<>:"/\\|?*]/.test(name)) return 'a separator or a character Windows refuses'
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'a control character'
  if (/[\uD800-\uDFFF]/u.test(name)) return 'a lone surrogate'
  if (name.normalize('NFC') !== name) return 'not NFC'
  if (/[. ]$/.test(name)) return 'a trailing dot or space'
  if (/^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³]) *(\.|$)/i.test(name)) return 'a Windows device name'
  if (Buffer.byteLength(name) > MAX_ENTRY_NAME_BYTES) return 'longer than 255 bytes'
  return null
}

/** Names as systems allow them: any text, and pieces of the kinds mixed in. */
const nasty = fc.constantFrom(':', '\\', '/', '\u0000', '\u0007', '\t', '\n', '\u007f', '\u0085', 'CON', 'nul', 'Com1', 'LPT¹', '.', ' ', '..', 'e\u0301', 'é', '😀', '\uD800', '.jpg', '.JPG', '*', '?', '"', '<', '>', '|')
const piece = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 8 }), nasty)
const fileName = fc.oneof(
  fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
  // Long names: past 255 bytes in one- to four-byte characters.
  fc.tuple(fc.constantFrom('a', 'é', '中', '😀', 'e\u0301'), fc.integer({ min: 60, max: 400 }), fc.constantFrom('', '.jpg', '.tar.gz', '.')).map(([c, n, ext]) => c.repeat(n) + ext),
)
const nameList = fc.array(fileName, { maxLength: 25 }).chain((names) =>
  // Duplicates, and duplicates in other case and normal form.
  fc.array(fc.constantFrom(...(names.length ? names : ['a.jpg'])), { maxLength: 5 }).map((copies) => [...names, ...copies, ...copies.map((c) => c.toUpperCase().normalize('NFD'))]),
)

async function readNames(zip: Buffer): Promise<string[]> {
  const archive = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(zip, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true }, (e, z) => (e ? reject(e) : resolve(z!))),
  )
  const names: string[] = []
  await new Promise<void>((resolve, reject) => {
    archive.on('error', reject)
    archive.on('entry', (entry: yauzl.Entry) => {
      names.push(entry.fileName)
      archive.readEntry()
    })
    archive.on('end', resolve)
    archive.readEntry()
  })
  return names
}

describe('safeEntryName', () => {
  it.each([
    ['photo.jpg', 'photo.jpg'],
    ['Ünïcödé 写真 😀.jpg', 'Ünïcödé 写真 😀.jpg'],
    ['.hidden.jpg', '.hidden.jpg'],
    ['12:30:00 shot.jpg', '12_30_00 shot.jpg'],
    ['C:photo.jpg', 'C_photo.jpg'],
    ['a\\b/c.jpg', 'a_b_c.jpg'],
    ['CON.jpg', '_CON.jpg'],
    ['nul', '_nul'],
    ['com1.tar.gz', '_com1.tar.gz'],
    ['console.jpg', 'console.jpg'],
    ['tab\there\u0001.jpg', 'tabhere.jpg'],
    ['caf\u0065\u0301.jpg', 'caf\u00e9.jpg'],
    ['trailing. .', 'trailing'],
    ['name.jpg. ', 'name.jpg'],
    ['..', 'file'],
    ['', 'file'],
    ['\u0000', 'file'],
    ['\uD800x.jpg', '\uFFFDx.jpg'],
  ])('%j → %j', (name, safe) => {
    expect(safeEntryName(name)).toBe(safe)
  })

  it('cuts a long name to 255 bytes of UTF-8 on a character boundary, keeping its extension', () => {
    const cut = safeEntryName(`${'😀'.repeat(100)}.jpeg`)
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(MAX_ENTRY_NAME_BYTES)
    expect(cut).toBe(`${'😀'.repeat(62)}.jpeg`)
    // A letter and its combining accent stay together.
    expect(safeEntryName(`${'e\u0301'.repeat(200)}`)).toBe('é'.repeat(127))
  })

  it('gives any name a safe one, and a safe name itself', () => {
    fc.assert(
      fc.property(fileName, (name) => {
        const safe = safeEntryName(name)
        expect(unsafeBecause(safe)).toBeNull()
        expect(safeEntryName(safe)).toBe(safe)
        if (unsafeBecause(name) === null) expect(safe).toBe(name)
      }),
      { numRuns: 2_000 },
    )
  })
})

describe('storableName', () => {
  it('keeps a name as sent but for what PostgreSQL cannot hold: U+0000 and half a UTF-16 pair', () => {
    expect(storableName('a\u0000b\u0007:.jpg')).toBe('a\uFFFDb\u0007:.jpg')
    expect(storableName('😀'.repeat(3).slice(0, 5))).toBe('😀😀\uFFFD')
    expect(storableName('ok 😀.jpg')).toBe('ok 😀.jpg')
  })
})

describe('safeUniqueEntryNames', () => {
  it('keeps the first of equal names and numbers the others before their extension, within 255 bytes', () => {
    expect(safeUniqueEntryNames(['manifest.json', 'a.jpg', 'A.JPG', 'a.jpg', 'manifest.json', 'a (2).jpg'])).toEqual(['manifest.json', 'a.jpg', 'A (2).JPG', 'a (3).jpg', 'manifest (2).json', 'a (2) (2).jpg'])
    const long = `${'x'.repeat(300)}.png`
    const [first, second] = safeUniqueEntryNames([long, long])
    expect(second).toBe(`${'x'.repeat(MAX_ENTRY_NAME_BYTES - ' (2).png'.length)} (2).png`)
    expect(first).not.toBe(second)
  })

  it('writes a valid zip of safe, unique names for any list, each mapping back to its original', async () => {
    await fc.assert(
      fc.asyncProperty(nameList, async (names) => {
        const safe = safeUniqueEntryNames(names)
        expect(safe).toHaveLength(names.length)
        const keys = safe.map((n) => n.normalize('NFC').toLowerCase())
        expect(new Set(keys).size).toBe(safe.length)
        safe.forEach((name, i) => {
          expect(unsafeBecause(name)).toBeNull()
          // Maps back: the safe name is the original's (made safe), or that with a number.
          const own = safeEntryName(names[i]!)
          if (name !== own) expect(name).toMatch(/ \(\d+\)(\.[^.]*)?$/)
        })
        // The first of a name keeps it whenever it was safe.
        if (names.length && unsafeBecause(names[0]!) === null) expect(safe[0]).toBe(names[0])
        const zip = await writeZip(names.map((name, i) => ({ name, bytes: Buffer.from(String(i)) })))
        expect(await readNames(zip)).toEqual(safe)
      }),
      { numRuns: 300 },
    )
  })
})
