import { describe, expect, it } from 'vitest'
import { readConfig } from '~/config.server'
import { isOperatorEmail } from '~/features/account/guards.server'

const base = { NODE_ENV: 'test', DATA_DIR: 'tests/.tmp/data', SESSION_SECRET: 'x'.repeat(32), RESULTS_KEY: 'a'.repeat(64) } as const

describe('OPERATOR_EMAILS', () => {
  it('reads a comma-separated list, trimmed and lower-cased; unset means nobody', () => {
    expect(readConfig({ ...base, OPERATOR_EMAILS: ' Ops@Example.com ,second@example.com,, ' }).OPERATOR_EMAILS).toEqual(['ops@example.com', 'second@example.com'])
    expect(readConfig({ ...base }).OPERATOR_EMAILS).toEqual([])
  })

  it('refuses a value that is not an email, naming the setting', () => {
    expect(() => readConfig({ ...base, OPERATOR_EMAILS: 'ops@example.com, not-an-email' })).toThrow(/OPERATOR_EMAILS/)
  })
})

describe('isOperatorEmail', () => {
  it('matches whole addresses in any case, never a part of one', () => {
    const list = ['ops@example.com']
    expect(isOperatorEmail('OPS@example.com', list)).toBe(true)
    expect(isOperatorEmail('ops@example.com.evil.test', list)).toBe(false)
    expect(isOperatorEmail('x-ops@example.com', list)).toBe(false)
    expect(isOperatorEmail('ops@example.com', [])).toBe(false)
  })
})
