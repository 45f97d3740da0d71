import { describe, expect, it } from 'vitest'
import { MAX_REDIRECT_PATH_LENGTH, safeRedirectPath } from './redirect'

const SITE = 'https://studio.example'

// Values seen in open-redirect reports, and variants of each: every one must land on /dashboard.
const HOSTILE: Array<string | null | undefined> = [
  null,
  undefined,
  '',
  'dashboard',
  'evil.example',
  'https://evil.example/',
  'http://evil.example',
  'https:evil.example',
  'https:/evil.example',
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  '//evil.example',
  '///evil.example',
  '////evil.example',
  ' //evil.example',
  '\t//evil.example',
  '/\\evil.example',
  '\\/evil.example',
  '\\\\evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '/\u0000/evil.example',
  '/.//evil.example',
  '/./evil.example/..//evil.example',
  '/..//evil.example',
  '/../..//evil.example',
  '/a/..//evil.example',
  '/a/../..//evil.example',
  '/%2e//evil.example',
  '/%2E%2E//evil.example',
  '/%2f%2fevil.example',
  '/%2F%2Fevil.example',
  '/%2f/evil.example',
  '/%252f%252fevil.example',
  '/%5cevil.example',
  '/%5C%5Cevil.example',
  '/%09/evil.example',
  '/%0a/evil.example',
  '/%',
  '/%E0%A4%A',
  'https://studio.example.evil.example/',
]

describe('safeRedirectPath', () => {
  it('keeps same-site paths with their query and fragment', () => {
    expect(safeRedirectPath('/credits')).toBe('/credits')
    expect(safeRedirectPath('/@evil.example', undefined, SITE)).toBe('/@evil.example') // a path here, not a host
    expect(safeRedirectPath('/tools/face-blurrer?x=1')).toBe('/tools/face-blurrer?x=1')
    expect(safeRedirectPath('/credits#history', undefined, SITE)).toBe('/credits#history')
    // Slashes inside the query are just data.
    expect(safeRedirectPath('/credits?next=//evil.example', undefined, SITE)).toBe('/credits?next=//evil.example')
    // Dot segments that stay on the site are resolved to the path a browser would reach.
    expect(safeRedirectPath('/tools/../credits', undefined, SITE)).toBe('/credits')
  })

  it.each(HOSTILE.map((value) => [JSON.stringify(value), value]))('sends %s to /dashboard', (_label, value) => {
    expect(safeRedirectPath(value)).toBe('/dashboard')
    expect(safeRedirectPath(value, undefined, SITE)).toBe('/dashboard')
  })

  it('refuses an absolute URL even on the site itself: only paths are taken', () => {
    expect(safeRedirectPath('https://studio.example/credits', undefined, SITE)).toBe('/dashboard')
  })

  it('does not send someone back to the sign-in page', () => {
    expect(safeRedirectPath('/login?from=/x')).toBe('/dashboard')
    expect(safeRedirectPath('/logout')).toBe('/dashboard')
    expect(safeRedirectPath('/x/../login')).toBe('/dashboard')
  })

  it('refuses a path too long to carry in a mailed link', () => {
    const invite = '/teams/invites/' + 'a'.repeat(43)
    expect(safeRedirectPath(invite, undefined, SITE)).toBe(invite)
    const long = '/credits?x=' + 'a'.repeat(MAX_REDIRECT_PATH_LENGTH)
    expect(safeRedirectPath(long, undefined, SITE)).toBe('/dashboard')
  })

  it('whatever it answers is a path that resolves on the same origin', () => {
    for (const value of HOSTILE) {
      const answer = safeRedirectPath(value, undefined, SITE)
      expect(new URL(answer, SITE).origin).toBe(SITE)
      expect(answer.startsWith('//')).toBe(false)
    }
  })
})
