// The face restorer's Standard detail (no face-restoration model) is priced below a real restoration by
// default, and every place that shows or charges the price says the same (issue 35 item 6). The test
// studio has no GFPGAN, so the restorer runs in Standard detail here.
import { describe, expect, it } from 'vitest'
import { TOOLS } from '~/catalog/tools'
import { apiDocsFacts } from '~/features/api-docs/page.server'
import { openApiDocument } from '~/features/api-docs/openapi'
import { creditFacts } from '~/features/site/facts.server'
import { gfpganAvailable } from '~/features/tools/models/registry.server'
import { loadToolPage } from '~/features/tools/page-loader.server'
import { BASE } from '../../../tests/support/requests'

describe('Standard detail price', () => {
  it('is below the restorer’s price on the tool page, /pricing, the API docs and the OpenAPI document', async () => {
    expect(gfpganAvailable()).toBe(false)
    const real = TOOLS['face-restorer'].defaultCost
    const page = await loadToolPage('face-restorer', new Request(`${BASE}/tools/face-restorer`))
    expect(page.cost).toBe(1)
    expect(page.cost).toBeLessThan(real)
    expect(creditFacts().costs['face-restorer']).toBe(page.cost)
    expect(apiDocsFacts().costs['face-restorer']).toBe(page.cost)
    const described = (openApiDocument().paths as Record<string, { post?: { description?: string } }>)['/api/face-retouch/restore/']?.post?.description
    expect(described).toContain('Costs 2 credits, 1 credit in Standard detail (no GFPGAN) by default')
  })
})
