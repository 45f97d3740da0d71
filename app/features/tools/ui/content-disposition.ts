// Reads the download name the server chose (SVG converter and enhancer send Content-Disposition,
// with the RFC 5987 UTF-8 form when the name is not plain ASCII).

export function filenameFromContentDisposition(header: string | null | undefined): string | null {
  if (!header) return null
  const extended = /filename\*\s*=\s*([^;]+)/i.exec(header)
  if (extended) {
    const raw = extended[1].trim().replace(/^"(.*)"$/, '$1')
    const quote = raw.indexOf("''")
    const encoded = quote >= 0 ? raw.slice(quote + 2) : raw
    try {
      const decoded = safeName(decodeURIComponent(encoded))
      if (decoded) return decoded
    } catch {
      // A malformed escape: fall back to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*("((?:\\.|[^"\\])*)"|[^;]+)/i.exec(header)
  if (!plain) return null
  const value = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain[1].trim()
  return safeName(value)
}

/** A name is used for a download only: strip any path a server might send. */
function safeName(name: string): string | null {
  const base = name.split(/[\\/]/).pop()?.trim() ?? ''
  return base.length > 0 ? base : null
}
