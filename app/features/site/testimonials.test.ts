import { STORAGE_SENTENCE } from '~/catalog/retention'
import { describe, expect, it } from 'vitest'
import { homeFaq } from './faq'
import { CAROUSEL_INTERVAL_MS, TESTIMONIALS, wrapIndex } from './testimonials'

describe('testimonial carousel rules', () => {
  it('rotates every 6 seconds', () => {
    expect(CAROUSEL_INTERVAL_MS).toBe(6000)
  })
  it('wraps at both ends', () => {
    expect(wrapIndex(5, 5)).toBe(0)
    expect(wrapIndex(-1, 5)).toBe(4)
    expect(wrapIndex(2, 5)).toBe(2)
    expect(wrapIndex(-6, 5)).toBe(4)
    expect(wrapIndex(3, 0)).toBe(0)
  })
  it('gives every testimonial a name, role, content, rating 1..5 and an avatar', () => {
    for (const t of TESTIMONIALS) {
      expect(t.name && t.role && t.content).toBeTruthy()
      expect(t.rating).toBeGreaterThanOrEqual(1)
      expect(t.rating).toBeLessThanOrEqual(5)
      expect(t.avatar.initials).toMatch(/^[A-Z]{1,3}$/)
    }
  })
})

describe('home FAQ', () => {
  it('has four questions that state the configured allowances', () => {
    const faq = homeFaq({ guestDaily: 7, userFloor: 12, signupBonus: 40 })
    expect(faq).toHaveLength(4)
    const credits = faq[0]!.answer
    expect(credits).toContain('7 credits a day')
    expect(credits).toContain('40 welcome credits')
    expect(credits).toContain('under 12 is topped up to 12')
  })
  it('makes no 30-day retention claim', () => {
    const text = homeFaq({ guestDaily: 5, userFloor: 10, signupBonus: 50 }).map((f) => f.answer).join(' ')
    expect(text).not.toMatch(/30 days|30-day/)
    expect(text).toContain(STORAGE_SENTENCE)
  })
})
