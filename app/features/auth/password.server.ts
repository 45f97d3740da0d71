// Password hashing with scrypt (memory-hard, in node:crypto). The stored string names its own
// parameters, so the cost can be raised later without breaking existing hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

const ALGORITHM = 'scrypt'
const COST = { N: 2 ** 15, r: 8, p: 1 }
const KEY_LENGTH = 64
const SALT_BYTES = 16

export const PASSWORD_MIN_LENGTH = 8
/** scrypt takes any length, but a megabyte "password" is an attack, not a password. */
export const PASSWORD_MAX_LENGTH = 200

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }, keyLength: number) {
  // scrypt needs about 128 * N * r bytes; Node's default ceiling (32 MB) is exactly that at N=2^15.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r }
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, COST, KEY_LENGTH)
  return [ALGORITHM, COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$')
}

interface ParsedHash {
  cost: { N: number; r: number; p: number }
  salt: Buffer
  key: Buffer
}

function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== ALGORITHM) return null
  const [N, r, p] = parts.slice(1, 4).map(Number)
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0)) return null
  const salt = Buffer.from(parts[4], 'base64')
  const key = Buffer.from(parts[5], 'base64')
  if (salt.length === 0 || key.length === 0) return null
  return { cost: { N, r, p }, salt, key }
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored)
  if (!parsed) return false
  const candidate = await derive(password, parsed.salt, parsed.cost, parsed.key.length)
  return timingSafeEqual(candidate, parsed.key)
}

// Checked when the email names no account, so a miss costs as much time as a wrong password.
let dummyHash: Promise<string> | undefined
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword('facet-studio-no-such-account')
  await verifyPassword(password, await dummyHash)
  return false
}
