// The one naming rule for the files of a batch's results zip (decision 167). A client's file name may
// be anything some operating system allows (colons, backslashes, CON.jpg, control characters, NFD,
// 300 bytes); a zip entry's name must be safe to extract on Windows, macOS and Linux, and yazl refuses
// some names outright ("C:x.jpg" reads as absolute, ".." as a way out). So: the name as sent where it
// is safe (people ask to keep their names), else the nearest safe name, and never two alike.
// Client-safe and pure: no Node module.

/** The longest name (in UTF-8 bytes) the common file systems take for one path component. */
export const MAX_ENTRY_NAME_BYTES = 255
/** What an unsafe character becomes. */
const REPLACEMENT = '_'
/** A name with nothing left of it. */
const FALLBACK_STEM = 'file'
/** Longer than this (in bytes) and the text after the last dot is not an extension worth keeping. */
const MAX_EXTENSION_BYTES = 32

// Path separators and the characters Windows refuses in a name (macOS shows ':' as '/').
const RESERVED_CHARACTERS = /[<>:"/\\|?*]/g
// C0 and C1 controls and DEL: invisible, and refused by Windows (below 0x20).
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g
// Windows' device names, whatever the extension (CON.jpg, nul.tar.gz, COM1, LPT9, COM¹).
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i
// Half of a UTF-16 pair with no other half: no UTF-8 for it (the u flag keeps whole pairs whole).
const LONE_SURROGATES = /[\uD800-\uDFFF]/gu
const TRAILING_DOTS_AND_SPACES = /[. ]+$/

const encoder = new TextEncoder()
const byteLength = (text: string) => encoder.encode(text).length

/** `text` cut to at most `maxBytes` of UTF-8, never inside a character (a grapheme: letter and its accents, an emoji). */
function cutToBytes(text: string, maxBytes: number): string {
  if (byteLength(text) <= maxBytes) return text
  let kept = ''
  let bytes = 0
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)) {
    const size = byteLength(segment)
    if (bytes + size > maxBytes) break
    kept += segment
    bytes += size
  }
  return kept
}

/** A name's characters made safe: well formed, no controls, NFC (after the controls go: one may sit between a letter and its accent), no separators or reserved characters. */
function cleanCharacters(text: string): string {
  return text.replace(LONE_SURROGATES, '\uFFFD').replace(CONTROL_CHARACTERS, '').normalize('NFC').replace(RESERVED_CHARACTERS, REPLACEMENT)
}

/** A name split at its extension's dot (none for ".jpg" alone, or an "extension" too long to be one). */
function splitExtension(name: string): { stem: string; ext: string } {
  const dot = name.lastIndexOf('.')
  if (dot <= 0 || byteLength(name.slice(dot)) > MAX_EXTENSION_BYTES) return { stem: name, ext: '' }
  return { stem: name.slice(0, dot), ext: name.slice(dot) }
}

/**
 * A stem, a suffix (" (2)") and an extension put together within MAX_ENTRY_NAME_BYTES: the stem is
 * what gives way. The whole never ends in a dot or a space, never names a Windows device, never is empty.
 */
function assemble(stem: string, suffix: string, ext: string): string {
  const extension = ext.replace(TRAILING_DOTS_AND_SPACES, '')
  const room = MAX_ENTRY_NAME_BYTES - byteLength(suffix + extension)
  let base = cutToBytes(stem, room)
  if (!suffix && !extension) base = base.replace(TRAILING_DOTS_AND_SPACES, '')
  if (!base) base = FALLBACK_STEM
  // Windows reads the part before the first dot, less trailing spaces, as a device: "CON.jpg", "con .tar.gz".
  const device = `${base}${suffix}${extension}`.split('.')[0]!.replace(/ +$/, '')
  if (WINDOWS_DEVICE.test(device)) base = cutToBytes(`${REPLACEMENT}${base}`, room)
  return `${base}${suffix}${extension}`
}

/** The nearest name to `name` that is safe as a zip entry on Windows, macOS and Linux (the name itself when it is). */
export function safeEntryName(name: string): string {
  const { stem, ext } = splitExtension(cleanCharacters(name))
  return assemble(stem, '', ext)
}

/** Two names one file system would take for the same file (Windows and macOS ignore case; macOS normalises). */
function collisionKey(name: string): string {
  return name.normalize('NFC').toLowerCase()
}

/**
 * Each name made safe and, in order, unique: a name already taken gets " (2)", " (3)"... before its
 * extension (within the byte limit). The first of equal names keeps its name, so the archive's own
 * files (manifest.json, errors.json), put first, always keep theirs.
 */
export function safeUniqueEntryNames(names: readonly string[]): string[] {
  const taken = new Set<string>()
  return names.map((name) => {
    const safe = safeEntryName(name)
    const { stem, ext } = splitExtension(safe)
    let candidate = safe
    for (let n = 2; taken.has(collisionKey(candidate)); n++) candidate = assemble(stem, ` (${n})`, ext)
    taken.add(collisionKey(candidate))
    return candidate
  })
}

/**
 * A name as sent, as the database can keep it: PostgreSQL's text and jsonb hold no U+0000 (a zip
 * entry's name may), and jsonb no half of a UTF-16 pair (a name cut to a length may end in one).
 */
export function storableName(name: string): string {
  return name.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD')
}
