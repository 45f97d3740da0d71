// The headers answers choose from, once each: the cache headers and a download's name. Client-safe (no server import).
/** Answers about one caller (a balance, a key, a job): no cache may keep them. */
export const NO_STORE = { 'Cache-Control': 'no-store' } as const
/** A page or answer about one signed-in caller: no cache may keep it (private as well, for caches that ignore no-store). */
export const PRIVATE_NO_STORE = { 'Cache-Control': 'private, no-store' } as const

/** An answer the same for everyone, fresh for `seconds` (pricing, the API description). */
export function publicFor(seconds: number) {
  return { 'Cache-Control': `public, max-age=${seconds}` }
}

/** An answer about one caller that their own browser may keep for `seconds`. */
export function privateFor(seconds: number) {
  return { 'Cache-Control': `private, max-age=${seconds}` }
}

/** `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` (RFC 6266). */
export function contentDisposition(filename: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`
}
