import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { adjustUserCredits, formatReport, OperatorError, parseAmount, showUserCredits } from '~/features/operator/credits.server'

async function newUser() {
  const email = `ops-${randomUUID()}@example.test`
  await getDb().insertInto('users').values({ email, password_hash: 'x', first_name: null, last_name: null }).execute()
  return email
}

describe('operator credits command', () => {
  it('grants and takes back credits as adjustments, never below zero', async () => {
    const email = await newUser()
    expect(await adjustUserCredits(email.toUpperCase(), 25, 'Outage goodwill')).toMatchObject({ email, balance: 25 })
    await expect(adjustUserCredits(email, -30, 'Too much')).rejects.toThrow(/balance is only 25/)
    expect(await adjustUserCredits(email, -5, 'Correction')).toMatchObject({ balance: 20 })
    const report = await showUserCredits(email)
    expect(report).toMatchObject({ email, balance: 20, lifetimeSpent: 0 })
    expect(report.transactions.map((t) => [t.kind, t.delta, t.description])).toEqual([
      ['adjustment', -5, 'Correction'],
      ['adjustment', 25, 'Outage goodwill'],
    ])
    expect(formatReport(report)).toMatch(/20 credits[\s\S]*Adjustment\s+\u22125\s+Correction/)
  })

  it('refuses unknown emails, empty reasons and bad amounts', async () => {
    await expect(adjustUserCredits(`nobody-${randomUUID()}@example.test`, 5, 'x')).rejects.toBeInstanceOf(OperatorError)
    await expect(adjustUserCredits(await newUser(), 5, '  ')).rejects.toThrow(/reason/)
    for (const bad of ['1.5', 'ten', '', '0', '99999999']) expect(() => parseAmount(bad)).toThrow(OperatorError)
    expect(parseAmount('+7')).toBe(7)
    expect(parseAmount('-3')).toBe(-3)
  })
})
