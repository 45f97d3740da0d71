import { describe, expect, it } from 'vitest'
import { CREDITS_CHARGED_HEADER, ENVIRONMENT_HEADER, isTestKey, runAnswerHeaders, TEST_MODE_VALUE, TEST_RESULT_MAX_PIXELS } from './environments'

const testKey = { apiKey: { id: 'k1', environment: 'test' as const } }
const liveKey = { apiKey: { id: 'k2', environment: 'live' as const } }
const session = { apiKey: null }

describe('test keys', () => {
  it('are told apart from live keys and sessions', () => {
    expect(isTestKey(testKey)).toBe(true)
    expect(isTestKey(liveKey)).toBe(false)
    expect(isTestKey(session)).toBe(false)
  })

  it('cap results at a quarter megapixel', () => {
    expect(TEST_RESULT_MAX_PIXELS).toBe(250_000)
  })

  it('say so on a tool answer, with the credits charged', () => {
    expect(runAnswerHeaders(testKey, 0)).toEqual({ [CREDITS_CHARGED_HEADER]: '0', [ENVIRONMENT_HEADER]: TEST_MODE_VALUE })
    expect(runAnswerHeaders(liveKey, 3)).toEqual({ 'X-Credits-Charged': '3', 'X-Facet-Environment': 'live' })
    expect(runAnswerHeaders(session, 1)).toEqual({ 'X-Credits-Charged': '1' })
  })
})
