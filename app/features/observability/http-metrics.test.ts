// Requests are labelled by the Remix route that answers them, never by their URL.
import type { ServerBuild } from '@remix-run/node'
import { describe, expect, it } from 'vitest'
import { remixRouteLabeler, SERVER_ROUTES } from './http-metrics.server'

// The shape of a build's route manifest: flat, each route naming its parent.
const routes = {
  root: { id: 'root', path: '' },
  'routes/_index': { id: 'routes/_index', parentId: 'root', index: true },
  'routes/api.jobs.$id': { id: 'routes/api.jobs.$id', parentId: 'root', path: 'api/jobs/:id' },
  'routes/tools': { id: 'routes/tools', parentId: 'root', path: 'tools' },
  'routes/tools.$slug': { id: 'routes/tools.$slug', parentId: 'routes/tools', path: ':slug' },
  'routes/$': { id: 'routes/$', parentId: 'root', path: '*' },
}
const build = { routes } as unknown as ServerBuild

describe('remixRouteLabeler', () => {
  const label = remixRouteLabeler(build)

  it('names the deepest route that matches, with its parameters unfilled', async () => {
    expect(await label('/api/jobs/0b7e5f8e-1d7a-4d5e-9d0b-6c1f2a3b4c5d')).toBe('routes/api.jobs.$id')
    expect(await label('/api/jobs/another-id')).toBe('routes/api.jobs.$id')
    expect(await label('/tools/face-blurrer')).toBe('routes/tools.$slug')
    expect(await label('/')).toBe('routes/_index')
  })

  it('puts every unknown URL under the catch-all route: the label set stays bounded', async () => {
    expect(await label('/wp-login.php')).toBe('routes/$')
    expect(await label('/a/b/c/d')).toBe('routes/$')
  })

  it('says unmatched when no route matches at all, and reads a development build each time', async () => {
    const devLabel = remixRouteLabeler(async () => ({ routes: { root: { id: 'root', path: '' }, 'routes/about': { id: 'routes/about', parentId: 'root', path: 'about' } } }) as unknown as ServerBuild)
    expect(await devLabel('/about')).toBe('routes/about')
    expect(await devLabel('/nowhere')).toBe(SERVER_ROUTES.unmatched)
  })
})
