// The background `model` choice through the endpoints, on the models this machine has (U²-Netp
// only): the answer names the model (X-Facet-Model), a choice that cannot be honoured says so
// (X-Facet-Note), the model is recorded on the job and the run, an unknown choice is a 400 on every
// endpoint that takes remover options, and GET /api/models/ answers what its OpenAPI entry says.
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import sharp from 'sharp'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { getDb } from '~/db/db.server'
import { openApiDocument } from '~/features/api-docs/openapi'
import { createApiKey } from '~/features/api-keys/keys.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { ensureUserAccount } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { action as postBatch } from '~/routes/api.batches._index'
import { action as postJob } from '~/routes/api.jobs._index'
import { loader as models } from '~/routes/api.models._index'
import { action as removeBg } from '~/routes/api.remove-bg'
import { action as removerPage, loader as removerPageLoader } from '~/routes/tools.background-remover'
import type { ToolPageResult } from '../ui/page-result'
import { fixture } from '../../../../tests/support/tools'
import { BASE, cookieFrom, formRequest, readResult, routeArgs } from '../../../../tests/support/requests'
import { MODEL_CHOICE_MESSAGE } from '../runners/background-remover.server'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

async function testKeyCaller() {
  const { user } = await createVerifiedUser()
  const made = await createApiKey(user.id, { name: 'models', environment: 'test' })
  if (!made.ok) throw new Error('no key')
  return { accountId: await ensureUserAccount(user.id), headers: { authorization: `Bearer ${made.key.key}`, 'x-facet-client-ip': uniqueAddress() } }
}

const smallPhoto = async () => new File([await sharp(fixture('photos/noface-rocket.jpg')).resize(240, 160).jpeg().toBuffer()], 'rocket.jpg', { type: 'image/jpeg' })

async function send(route: typeof removeBg, path: string, headers: Record<string, string>, fields: Record<string, string | Blob>) {
  return readResult(await route(routeArgs(formRequest(path, fields, { headers }))))
}

describe('model= on POST /api/remove-bg/', () => {
  it('quality without a quality model installed: U²-Netp cuts out, the answer names it and says why', async () => {
    const caller = await testKeyCaller()
    const answer = await send(removeBg, '/api/remove-bg/', caller.headers, { image: await smallPhoto(), model: 'quality' })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('image/png')
    expect(answer.headers.get('X-Facet-Model')).toBe('u2netp')
    expect(answer.headers.get('X-Facet-Note')).toBe('model=quality: no quality model (BiRefNet-lite, ISNet general-use) is installed on this server, so U²-Netp was used.')
    const job = await getDb().selectFrom('tool_jobs').select(['model', 'options', 'note']).where('account_id', '=', caller.accountId).executeTakeFirstOrThrow()
    expect(job.model).toBe('u2netp')
    expect(job.options).toEqual({ model: 'quality' })
    const run = await getDb().selectFrom('tool_runs').select(['model', 'outcome']).where('account_id', '=', caller.accountId).executeTakeFirstOrThrow()
    expect(run).toEqual({ model: 'u2netp', outcome: 'success' })
  })

  it('fast (and no choice at all) answer without a note', async () => {
    const caller = await testKeyCaller()
    for (const fields of [{ model: 'FAST' }, {}] as Array<Record<string, string>>) {
      const answer = await send(removeBg, '/api/remove-bg/', caller.headers, { image: await smallPhoto(), ...fields })
      expect(answer.status).toBe(200)
      expect(answer.headers.get('X-Facet-Model')).toBe('u2netp')
      expect(answer.headers.get('X-Facet-Note')).toBeNull()
    }
  })

  it('an unknown choice is a 400 naming the choices, and nothing runs', async () => {
    const caller = await testKeyCaller()
    const answer = await send(removeBg, '/api/remove-bg/', caller.headers, { image: await smallPhoto(), model: 'rmbg-2' })
    expect(answer.status).toBe(400)
    expect(answer.body.error).toBe(MODEL_CHOICE_MESSAGE)
    expect(MODEL_CHOICE_MESSAGE).toBe('model must be one of auto, fast, quality, portrait.')
    expect(await getDb().selectFrom('tool_jobs').select('id').where('account_id', '=', caller.accountId).execute()).toEqual([])
  })
})

describe('model= on the jobs and batches endpoints (the same option of the same runner)', () => {
  it('POST /api/jobs/ and POST /api/batches/ refuse an unknown choice with the same message', async () => {
    const caller = await testKeyCaller()
    const job = await send(postJob, '/api/jobs/', caller.headers, { tool: 'background-remover', image: await smallPhoto(), model: 'best' })
    expect(job.status).toBe(400)
    expect(job.body.error).toBe(MODEL_CHOICE_MESSAGE)
    const batch = await send(postBatch, '/api/batches/', caller.headers, { tool: 'background-remover', image: await smallPhoto(), model: 'best' })
    expect(batch.status).toBe(400)
    expect(batch.body.error).toBe(MODEL_CHOICE_MESSAGE)
  })

  it('POST /api/jobs/ keeps the choice with the job', async () => {
    const caller = await testKeyCaller()
    const accepted = await send(postJob, '/api/jobs/', caller.headers, { tool: 'background-remover', image: await smallPhoto(), model: 'portrait' })
    expect(accepted.status).toBe(202)
    const job = await getDb().selectFrom('tool_jobs').select('options').where('id', '=', accepted.body.id).executeTakeFirstOrThrow()
    expect(job.options).toEqual({ model: 'portrait' })
  })
})

describe('the remover page without JavaScript', () => {
  it('posts the select\'s model with the form; the result page says which model made the cutout and why', async () => {
    const posted = await readResult(
      await removerPage(routeArgs(formRequest('/tools/background-remover', { image: await smallPhoto(), model: 'portrait' }, { headers: { 'x-facet-client-ip': uniqueAddress() } }))),
    )
    expect(posted.status).toBe(302)
    const location = new URL(posted.headers.get('location')!, BASE)
    // The choice rides in the address, so the page's select shows it again.
    expect(location.searchParams.get('model')).toBe('portrait')
    const cookie = cookieFrom(posted.headers)
    let page = await removerPageLoader(routeArgs(new Request(location, { headers: { cookie } })))
    await vi.waitFor(
      async () => {
        page = await removerPageLoader(routeArgs(new Request(location, { headers: { cookie } })))
        expect(page.job?.status).toBe('succeeded')
      },
      { timeout: 60_000, interval: 100 },
    )
    const result = page.pageResult as ToolPageResult
    if (!result.ok) throw new Error(`run failed: ${result.error}`)
    expect(result.model).toBe('u2netp')
    expect(result.fieldValues?.model).toBe('portrait')
    expect(result.note).toBe('model=portrait: the portrait model (MODNet) is not installed on this server, so U²-Netp was used.')
  })
})

describe('GET /api/models/', () => {
  it('lists every model with its licence and state, as the OpenAPI document describes', async () => {
    const answer = await readResult(await models())
    expect(answer.status).toBe(200)
    const byId = Object.fromEntries((answer.body.results as Array<{ id: string }>).map((m) => [m.id, m]))
    expect(byId.u2netp).toMatchObject({ installed: true, usable: true, license: 'Apache-2.0', commercial_use: true, choices: ['auto', 'fast'] })
    expect(byId['birefnet-lite']).toMatchObject({ installed: false, license: 'MIT', commercial_use: true, choices: ['auto', 'quality'], approx_megabytes: 224 })
    expect(byId.modnet).toMatchObject({ installed: false, choices: ['portrait'] })
    expect(byId.gfpgan).toMatchObject({ commercial_use: false, choices: [] })

    const doc = openApiDocument() as unknown as { paths: Record<string, any>; components: object }
    const schema = doc.paths['/api/models/'].get.responses['200'].content['application/json'].schema
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(ajv)
    const validate = ajv.compile({ ...schema, components: doc.components })
    expect(validate(answer.body), JSON.stringify(validate.errors)).toBe(true)
  })
})
