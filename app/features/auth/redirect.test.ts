import { describe, expect, it } from 'vitest'
import { safeRedirectPath } from './redirect'

describe('safeRedirectPath', () => {
  it('keeps same-site paths with their query', () => {
    expect(safeRedirectPath('/credits')).toBe('/credits')
    expect(safeRedirectPath('/tools/face-blurrer?x=1')).toBe('/tools/face-blurrer?x=1')
  })

  it('falls back to /dashboard for anything else', () => {
    for (const bad of [null, undefined, '', 'dashboard', 'https://evil.example/', '//evil.example', '/\\evil.example', '/\t/evil.example', ' //evil.example', 'javascript:alert(1)']) {
      expect(safeRedirectPath(bad)).toBe('/dashboard')
    }
  })

  it('does not send someone back to the sign-in page', () => {
    expect(safeRedirectPath('/login?from=/x')).toBe('/dashboard')
    expect(safeRedirectPath('/logout')).toBe('/dashboard')
  })
})
