import { describe, expect, it } from 'vitest'
import { RunSlots } from './slots'

describe('RunSlots', () => {
  it('hands out at most its size, then refuses a try', () => {
    const slots = new RunSlots(2)
    expect(slots.tryTake()).toBe(true)
    expect(slots.tryTake()).toBe(true)
    expect(slots.tryTake()).toBe(false)
    slots.give()
    expect(slots.tryTake()).toBe(true)
  })

  it('gives a returned slot to a waiter first: a try cannot overtake it', async () => {
    const slots = new RunSlots(1)
    expect(slots.tryTake()).toBe(true)
    let waited = false
    const waiter = slots.take().then(() => (waited = true))
    expect(slots.tryTake()).toBe(false)
    slots.give()
    await waiter
    expect(waited).toBe(true)
    // The waiter holds the slot now.
    expect(slots.inUse).toBe(1)
    expect(slots.tryTake()).toBe(false)
    slots.give()
    expect(slots.inUse).toBe(0)
  })

  it('never counts below zero', () => {
    const slots = new RunSlots(1)
    slots.give()
    expect(slots.inUse).toBe(0)
    expect(slots.tryTake()).toBe(true)
    expect(slots.tryTake()).toBe(false)
  })
})
