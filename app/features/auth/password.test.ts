import { describe, expect, it } from 'vitest'
import { hashPassword, verifyAgainstDummy, verifyPassword } from './password.server'

describe('password hashing', () => {
  it('accepts the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery')
    expect(await verifyPassword('correct horse battery', stored)).toBe(true)
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false)
  })

  it('salts every hash and names its parameters', async () => {
    const a = await hashPassword('same-password')
    const b = await hashPassword('same-password')
    expect(a).not.toBe(b)
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
    expect(a).not.toContain('same-password')
  })

  it('refuses malformed stored values instead of throwing', async () => {
    expect(await verifyPassword('anything', '')).toBe(false)
    expect(await verifyPassword('anything', 'bcrypt$10$abc')).toBe(false)
    expect(await verifyPassword('anything', 'scrypt$x$8$1$c2FsdA==$a2V5')).toBe(false)
  })

  it('verifies hashes made with other cost parameters', async () => {
    // A hash written with a lower cost (as an older release might have) still verifies.
    const { scryptSync, randomBytes } = await import('node:crypto')
    const salt = randomBytes(16)
    const key = scryptSync('legacy-pass', salt, 32, { N: 1024, r: 8, p: 1 })
    const stored = `scrypt$1024$8$1$${salt.toString('base64')}$${key.toString('base64')}`
    expect(await verifyPassword('legacy-pass', stored)).toBe(true)
    expect(await verifyPassword('legacy-pasS', stored)).toBe(false)
  })

  it('answers false for a missing account', async () => {
    expect(await verifyAgainstDummy('whatever')).toBe(false)
  })
})
