import { describe, expect, it } from 'vitest'
import { loader } from '~/routes/healthz'
import { readResult } from '../support/requests'

describe('GET /healthz', () => {
  it('reports the database as reachable, naming its kind', async () => {
    const { status, body } = await readResult(await loader())
    expect(status).toBe(200)
    expect(body.database).toEqual({ ok: true, kind: process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite' })
  })

  it('says which PUBLIC_URL mail links use, and whether it looks wrong', async () => {
    const { body } = await readResult(await loader())
    expect(body.publicUrl).toEqual({ value: expect.stringMatching(/^https?:\/\//), warning: null })
  })
})
