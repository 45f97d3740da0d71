import { describe, expect, it } from 'vitest'
import { creditsLabel, dashboardLabel, TOOL_LINKS } from '~/features/layout/nav'

describe('creditsLabel', () => {
  it("reads 'Credits' while the balance is unknown", () => {
    expect(creditsLabel(null)).toBe('Credits')
  })
  it('formats the balance for en-US', () => {
    expect(creditsLabel({ source: 'visitor', balance: 5 })).toBe('5 credits')
    expect(creditsLabel({ source: 'user', balance: 12500 })).toBe('12,500 credits')
    expect(creditsLabel({ source: 'user', balance: 0 })).toBe('0 credits')
    expect(creditsLabel({ source: 'visitor', balance: 1 })).toBe('1 credit')
  })
})

describe('dashboardLabel', () => {
  const user = { id: 'u1', email: 'ada@example.com', first_name: null, last_name: null }
  it('uses the full name when there is one', () => {
    expect(dashboardLabel({ ...user, first_name: 'Ada', last_name: 'Lovelace' })).toBe('Ada Lovelace')
    expect(dashboardLabel({ ...user, first_name: ' Ada ', last_name: '' })).toBe('Ada')
  })
  it('falls back to the email, then to Dashboard', () => {
    expect(dashboardLabel(user)).toBe('ada@example.com')
    expect(dashboardLabel({ ...user, email: '' })).toBe('Dashboard')
    expect(dashboardLabel(null)).toBe('Dashboard')
  })
})

describe('TOOL_LINKS', () => {
  it('lists the five tools with a name and a description', () => {
    expect(TOOL_LINKS).toHaveLength(5)
    for (const t of TOOL_LINKS) {
      expect(t.to).toMatch(/^\/tools\/[a-z-]+$/)
      expect(t.label.length).toBeGreaterThan(0)
      expect(t.description.length).toBeGreaterThan(0)
    }
  })
})
