// The API key format, in the manner of GitHub's tokens: a readable prefix that names the product
// and environment, 30 random base62 characters (178 bits), and a 6-character base62 CRC32 of
// everything before it. A secret scanner recognises a leaked key by its shape and checksum, and a
// mistyped or truncated key is refused without a database lookup.
import { createHash, randomInt } from 'node:crypto'
import { crc32 } from 'node:zlib'
import type { ApiKeyEnvironment } from '~/db/schema'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const RANDOM_LENGTH = 30
const CHECKSUM_LENGTH = 6
/** How many random characters the visible prefix shows after `fs_live_` / `fs_test_`. */
const VISIBLE_RANDOM = 4

export const KEY_PREFIXES: Record<ApiKeyEnvironment, string> = { live: 'fs_live_', test: 'fs_test_' }
const KEY_PATTERN = new RegExp(`^fs_(live|test)_([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`)

function base62(value: number, width: number): string {
  let out = ''
  let n = value
  while (n > 0) {
    out = ALPHABET[n % 62] + out
    n = Math.floor(n / 62)
  }
  return out.padStart(width, '0')
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH)
}

export interface NewKey {
  key: string
  prefix: string
  hash: string
}

export function generateApiKey(environment: ApiKeyEnvironment): NewKey {
  let random = ''
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(62)]
  const body = KEY_PREFIXES[environment] + random
  const key = body + checksum(body)
  return { key, prefix: body.slice(0, KEY_PREFIXES[environment].length + VISIBLE_RANDOM), hash: hashApiKey(key) }
}

/** The environment a well-formed key names, or null when its shape or checksum is wrong. */
export function parseApiKey(key: string): { environment: ApiKeyEnvironment } | null {
  const match = KEY_PATTERN.exec(key)
  if (!match) return null
  const body = key.slice(0, key.length - CHECKSUM_LENGTH)
  if (checksum(body) !== match[3]) return null
  return { environment: match[1] as ApiKeyEnvironment }
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}
