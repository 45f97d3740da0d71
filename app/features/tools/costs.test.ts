// The face restorer's Standard detail price (issues 21 and 35): below a real restoration by default, its own
// setting when the operator sets one, used only while GFPGAN is not usable.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { resetConfigForTests } from '~/config.server'

const gfpgan = vi.hoisted(() => ({ usable: false }))
vi.mock('~/features/tools/models/registry.server', () => ({ gfpganAvailable: () => gfpgan.usable }))

const { toolCost } = await import('./costs.server')

const saved = { ...process.env }
beforeEach(() => {
  process.env.SESSION_SECRET = 'x'.repeat(32)
  process.env.RESULTS_KEY = 'a'.repeat(64)
})
afterEach(() => {
  process.env = { ...saved }
  resetConfigForTests()
})

function withEnv(env: Record<string, string>) {
  Object.assign(process.env, env)
  resetConfigForTests()
}

describe('toolCost and FACE_RESTORER_STANDARD_COST', () => {
  it('prices Standard detail separately when the operator sets it', () => {
    withEnv({ FACE_RESTORER_STANDARD_COST: '1' })
    gfpgan.usable = false
    expect(toolCost('face-restorer')).toBe(1)
    expect(toolCost('image-enhancer')).toBe(2)
  })

  it('keeps the restorer price while GFPGAN restores the faces', () => {
    withEnv({ FACE_RESTORER_STANDARD_COST: '1', TOOL_COSTS: 'face-restorer=3' })
    gfpgan.usable = true
    expect(toolCost('face-restorer')).toBe(3)
  })

  it('prices Standard detail below a real restoration when the setting is unset (issue 35)', () => {
    withEnv({})
    gfpgan.usable = true
    expect(toolCost('face-restorer')).toBe(2)
    gfpgan.usable = false
    expect(toolCost('face-restorer')).toBe(1)
    withEnv({ TOOL_COSTS: 'face-restorer=4' })
    expect(toolCost('face-restorer')).toBe(2)
  })

  it('refuses a price that is not a whole number of credits', () => {
    withEnv({ FACE_RESTORER_STANDARD_COST: 'cheap' })
    expect(() => toolCost('face-restorer')).toThrow(/FACE_RESTORER_STANDARD_COST/)
  })
})
