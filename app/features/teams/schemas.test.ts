// The team forms' and endpoints' input rules, without a database.
import { describe, expect, it } from 'vitest'
import { changeMemberSchema, createTeamSchema, inviteSchema } from './schemas'
import { capMessage } from './messages'

describe('team input', () => {
  it('trims names and refuses empty or long ones', () => {
    expect(createTeamSchema.parse({ name: '  Acme  ' })).toEqual({ name: 'Acme' })
    expect(createTeamSchema.safeParse({ name: '   ' }).success).toBe(false)
    expect(createTeamSchema.safeParse({ name: 'x'.repeat(61) }).success).toBe(false)
  })

  it('lower-cases invited addresses and defaults the role to member', () => {
    expect(inviteSchema.parse({ email: ' Ada@Example.TEST ' })).toEqual({ email: 'ada@example.test', role: 'member' })
    expect(inviteSchema.safeParse({ email: 'not-an-email' }).success).toBe(false)
    expect(inviteSchema.safeParse({ email: 'a@example.test', role: 'boss' }).success).toBe(false)
  })

  it('takes a cap as a number (JSON) or a string (a form), "" or null for none, and needs role or cap', () => {
    expect(changeMemberSchema.parse({ cap: 20 })).toEqual({ cap: 20 })
    expect(changeMemberSchema.parse({ cap: '15' })).toEqual({ cap: 15 })
    expect(changeMemberSchema.parse({ cap: '' })).toEqual({ cap: null })
    expect(changeMemberSchema.parse({ cap: null, role: 'admin' })).toEqual({ cap: null, role: 'admin' })
    for (const cap of [-1, 1.5, 'ten', 2_000_000]) expect(changeMemberSchema.safeParse({ cap }).success).toBe(false)
    expect(changeMemberSchema.safeParse({}).success).toBe(false)
  })

  it('names the cap, the team and the month’s use in the 402 message', () => {
    expect(capMessage(20, 'Acme', 18)).toBe('This run would pass your monthly cap of 20 credits on team Acme (18 used this month). To use your own credits instead, switch to your own balance.')
    expect(capMessage(1, 'Acme', 1)).toBe('This run would pass your monthly cap of 1 credit on team Acme (1 used this month). To use your own credits instead, switch to your own balance.')
  })
})
