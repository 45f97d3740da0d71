import { describe, expect, it } from 'vitest'
import { action, loader } from '~/routes/api.$'
import { BASE, readResult, routeArgs } from '../../tests/support/requests'

describe('unknown /api/* paths', () => {
  it('answer JSON 404 to reads and writes alike', async () => {
    const get = await readResult(loader(routeArgs(new Request(`${BASE}/api/nothing/here/`))))
    expect(get.status).toBe(404)
    expect(get.body).toEqual({ error: 'No API endpoint at /api/nothing/here/.', detail: 'No API endpoint at /api/nothing/here/.' })
    const post = await readResult(action(routeArgs(new Request(`${BASE}/api/v2/remove-bg`, { method: 'POST' }))))
    expect(post.status).toBe(404)
  })
})
