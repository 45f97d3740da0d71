// The file picker's own checks (spec §5), run in the browser before anything is uploaded: the real
// type from the file's first bytes (a text file renamed .png is refused here, not after the click),
// then the size limit. The server checks the bytes again; these only spare the user a pointless upload.
import { MEGABYTE, type ToolDefinition } from '~/catalog/tools'

export const INVALID_FILE_TYPE = 'Invalid file type'

export function fileTooLargeMessage(maxMegabytes: number): string {
  return `File too large (max ${maxMegabytes}MB)`
}

/** The alert to show for this file, or null when it may be uploaded. */
export function checkFile(tool: ToolDefinition, file: { type: string; size: number }): string | null {
  if (!tool.acceptedTypes.includes(file.type.toLowerCase())) return INVALID_FILE_TYPE
  if (file.size > tool.maxMegabytes * MEGABYTE) return fileTooLargeMessage(tool.maxMegabytes)
  return null
}

/** How many leading bytes the sniffer reads: enough for every signature and an SVG's prologue. */
export const SNIFF_BYTES = 1024

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  signature.every((value, i) => bytes[offset + i] === value)

/**
 * The type the bytes say, among the types the tools accept (and a few common ones, to name them in
 * the refusal), or null. Four signatures and a text check: a library such as file-type would add
 * tens of kilobytes to every tool page for the same answer.
 */
export function sniffType(bytes: Uint8Array): string | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp'
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'image/tiff'
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return 'image/gif'
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46])) return 'application/pdf'
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/^\uFEFF/, '')
  // An SVG may open with an XML declaration, comments or a doctype before its root element.
  if (/^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i.test(text)) return 'image/svg+xml'
  return null
}

const TYPE_NAMES: Record<string, string> = {
  'image/png': 'a PNG image',
  'image/jpeg': 'a JPG image',
  'image/webp': 'a WebP image',
  'image/tiff': 'a TIFF image',
  'image/gif': 'a GIF image',
  'application/pdf': 'a PDF document',
  'image/svg+xml': 'an SVG file',
}

export type FileVerdict = { ok: true; file: File; type: string } | { ok: false; message: string }

/** Why a file of this (sniffed) type is refused, in words a user can act on. */
export function invalidTypeText(tool: ToolDefinition, sniffed: string | null): string {
  const what = sniffed ? TYPE_NAMES[sniffed] : null
  const wanted = tool.fileField === 'svg' ? 'an SVG file' : `a ${tool.acceptedLabel} image`
  return `${INVALID_FILE_TYPE}: ${what ? `this is ${what}` : 'the file is not an image this tool can read'}. Choose ${wanted}.`
}

/**
 * Reads the file's first bytes and checks its real type and size. An accepted file comes back with
 * its sniffed type as its declared one, so a TIFF the browser typed as '' still passes `checkFile`.
 */
export async function inspectFile(tool: ToolDefinition, file: File): Promise<FileVerdict> {
  if (file.size === 0) return { ok: false, message: 'The file is empty. Choose another one.' }
  const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer())
  const type = sniffType(head)
  if (!type || !tool.acceptedTypes.includes(type)) return { ok: false, message: invalidTypeText(tool, type) }
  if (file.size > tool.maxMegabytes * MEGABYTE) {
    return { ok: false, message: `${fileTooLargeMessage(tool.maxMegabytes)}: this file is ${formatMegabytes(file.size)}.` }
  }
  const typed = file.type === type ? file : new File([file], file.name, { type, lastModified: file.lastModified })
  return { ok: true, file: typed, type }
}

/** Browsers cannot draw TIFF: its preview is a placeholder, never a broken image. */
export function browserCanShow(type: string): boolean {
  return type !== 'image/tiff'
}

/** '2.41 MB': the file summary's size. */
export function formatMegabytes(bytes: number): string {
  const mb = bytes / MEGABYTE
  return `${mb < 0.01 && bytes > 0 ? '<0.01' : mb.toFixed(2)} MB`
}
