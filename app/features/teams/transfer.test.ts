import { describe, expect, it } from 'vitest'
import { movable, TRANSFER_AMOUNT_MESSAGE, transferApiSchema, transferFormSchema, transferTooLarge } from './transfer'

describe('moving credits into a team', () => {
  it('may move the balance above the daily floor (all of it when the floor is 0)', () => {
    expect(movable(45, 10)).toBe(35)
    expect(movable(8, 10)).toBe(0)
    expect(movable(45, 0)).toBe(45)
  })

  it('says what may move and why the rest stays', () => {
    expect(transferTooLarge(50, 45, 10)).toBe(
      'You can move at most 35 credits: your balance is 45 credits (the first 10 credits stay with you: they are your daily allowance). You asked to move 50 credits.',
    )
    expect(transferTooLarge(1, 10, 10)).toBe('You have no credits to move: your balance is 10 credits (the first 10 credits stay with you: they are your daily allowance).')
    expect(transferTooLarge(9, 1, 0)).toBe('You can move at most 1 credit: your balance is 1 credit. You asked to move 9 credits.')
  })

  it('takes a positive whole number: from a form as text, from JSON only as a number', () => {
    expect(transferFormSchema.parse({ amount: '12' })).toEqual({ amount: 12 })
    for (const amount of ['', '0', '-1', '1.5', 'ten', '1000001']) {
      const parsed = transferFormSchema.safeParse({ amount })
      expect(parsed.success).toBe(false)
      expect(parsed.error?.issues[0].message).toBe(TRANSFER_AMOUNT_MESSAGE)
    }
    expect(transferApiSchema.parse({ amount: 3 })).toEqual({ amount: 3 })
    for (const amount of ['3', true, null, 0, 2.5]) expect(transferApiSchema.safeParse({ amount }).success).toBe(false)
  })
})
