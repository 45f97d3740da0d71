// The OpenAPI document is valid OpenAPI 3.1, and real answers of the endpoints (called through
// their route modules on a real database) match it: every status they answer is documented, and
// every JSON body validates against the documented schema (ajv, JSON Schema 2020-12).
import { Validator } from '@seriousme/openapi-schema-validator'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { createVerifiedUser, uniqueAddress, uniqueEmail } from '~/features/auth/testing.server'
import { TOOLS } from '~/catalog/tools'
import { BASE, jsonRequest, answerOf, readResult, routeArgs } from '../../../tests/support/requests'
import { action as login } from '../../routes/api.auth.login'
import { action as logout } from '../../routes/api.auth.logout'
import { loader as profile } from '../../routes/api.auth.profile'
import { action as register } from '../../routes/api.auth.register'
import { loader as balance } from '../../routes/api.credits.balance'
import { loader as packages } from '../../routes/api.credits.packages'
import { action as purchase } from '../../routes/api.credits.purchase'
import { loader as transactions } from '../../routes/api.credits.transactions'
import { action as removeKey } from '../../routes/api.keys.$id'
import { action as createKey, loader as listKeys } from '../../routes/api.keys'
import { loader as openapi } from '../../routes/api.openapi[.]json'
import { action as removeBg } from '../../routes/api.remove-bg'
import { loader as result } from '../../routes/api.results.$id'
import { action as svg } from '../../routes/api.svg2image.convert'
import { action as removeWebhook } from '../../routes/api.webhooks.$id'
import { action as redeliver } from '../../routes/api.webhooks.deliveries.$id.redeliver'
import { action as createWebhook, loader as listWebhooks } from '../../routes/api.webhooks'
import { action as postJob } from '../../routes/api.jobs._index'
import { loader as getJob } from '../../routes/api.jobs.$id'
import { loader as getJobAnswer } from '../../routes/api.jobs.$id.answer'
import { action as postCorrections, loader as getCorrections } from '../../routes/api.jobs.$id.corrections'
import { action as postBatch } from '../../routes/api.batches._index'
import { loader as getBatch } from '../../routes/api.batches.$id'
import { loader as getBatchDownload } from '../../routes/api.batches.$id.download'
import { readFileSync } from 'node:fs'
import { waitForJobEnd } from '~/features/jobs/wait.server'
import { vi } from 'vitest'
import { linkMailedTo } from '~/features/auth/testing.server'
import { action as createTeam, loader as listTeams } from '../../routes/api.teams._index'
import { loader as getTeam } from '../../routes/api.teams.$id'
import { loader as getTeamActivity } from '../../routes/api.teams.$id.activity'
import { action as inviteToTeam } from '../../routes/api.teams.$id.invites'
import { action as withdrawInvite } from '../../routes/api.teams.$id.invites.$inviteId'
import { action as teamMember } from '../../routes/api.teams.$id.members.$userId'
import { action as acceptInvite } from '../../routes/api.teams.invites.accept'
import { loader as exportAccount } from '../../routes/api.account.export'
import { action as deleteAccount } from '../../routes/api.account._index'
import { getDb } from '~/db/db.server'
import { createTeam as makeTeam } from '~/features/teams/teams.server'
import { openApiDocument } from './openapi'

type Handler = (args: ReturnType<typeof routeArgs>) => Promise<unknown> | unknown
type Method = 'get' | 'post' | 'delete' | 'patch'

const doc = openApiDocument() as unknown as {
  paths: Record<string, Record<Method, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>
  components: object
}
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)

/** Checks one real answer: its status is the one the call should get, and the document's operation for `template` and `method` describes it. */
async function conforms(method: Method, template: string, raw: unknown, status: number) {
  const res = await readResult(raw)
  expect(res.status, `${method.toUpperCase()} ${template}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(status)
  const operation = doc.paths[template]?.[method]
  expect(operation, `${method.toUpperCase()} ${template} is documented`).toBeTruthy()
  const documented = operation.responses[String(res.status)]
  expect(documented, `${method.toUpperCase()} ${template} documents status ${res.status}`).toBeTruthy()
  const type = (res.headers.get('content-type') ?? '').split(';')[0].trim()
  if (res.status === 204) return res
  expect(documented.content, `${method.toUpperCase()} ${template} ${res.status} documents a body`).toBeTruthy()
  const media = documented.content![type]
  expect(media, `${method.toUpperCase()} ${template} ${res.status} documents ${type}`).toBeTruthy()
  if (type === 'application/json') {
    const validate = ajv.compile({ ...media.schema, components: doc.components })
    const valid = validate(res.body)
    expect(validate.errors ?? [], `${method.toUpperCase()} ${template} ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`).toEqual([])
    expect(valid).toBe(true)
  }
  return res
}

const get = (path: string, headers: Record<string, string> = {}) => new Request(BASE + path, { headers: { 'x-facet-client-ip': uniqueAddress(), ...headers } })
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => jsonRequest(path, body, { headers: { 'x-facet-client-ip': uniqueAddress(), ...headers } })
const call = (handler: Handler, request: Request, params: Record<string, string> = {}) => answerOf(handler(routeArgs(request, params)))

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, served at /api/openapi.json', async () => {
    const served = await conforms('get', '/api/openapi.json', await call(openapi as Handler, get('/api/openapi.json')), 200)
    const validator = new Validator()
    const outcome = await validator.validate(served.body)
    expect(outcome.errors ?? []).toEqual([])
    expect(outcome.valid).toBe(true)
    expect(validator.version).toBe('3.1')
    // Every tool of the catalog is described.
    for (const tool of Object.values(TOOLS)) expect(Object.keys(served.body.paths)).toContain(tool.apiPath)
    // The headers a tool's answer carries of its own are described beside the common ones.
    const removerHeaders = Object.keys(served.body.paths[TOOLS['background-remover'].apiPath].post.responses['200'].headers)
    expect(removerHeaders).toEqual(expect.arrayContaining(['X-Facet-Job-Id', 'X-Facet-Model', 'X-Facet-Note']))
  })

  it('is strict enough to refuse a body that does not match', async () => {
    const check = (name: string, body: unknown) => ajv.compile({ $ref: `#/components/schemas/${name}`, components: doc.components })(body)
    expect(check('NewApiKey', { id: 'x', name: 'n', environment: 'live', prefix: 'fs_live_abcd', key: 'fs_live_short' })).toBe(false)
    expect(check('ApiKey', { id: '00000000-0000-4000-8000-000000000000', name: 'n', environment: 'staging', prefix: 'fs_live_abcd', created_at: new Date().toISOString(), last_used_at: null, runs_30d: 0, credits_30d: 0 })).toBe(false)
    expect(check('Credits', { source: 'visitor', balance: 5, lifetime_spent: 1 })).toBe(false)
    expect(check('Credits', { source: 'visitor', balance: 5 })).toBe(true)
  })

  it('matches the answers of the account and credit endpoints', async () => {
    const email = uniqueEmail()
    await conforms('post', '/api/auth/register/', await call(register as Handler, post('/api/auth/register/', { email, password: 'a-good-password' })), 201)
    await conforms('post', '/api/auth/register/', await call(register as Handler, post('/api/auth/register/', { email: 'nope' })), 400)
    const { user, password, token } = await createVerifiedUser()
    const signedIn = await conforms('post', '/api/auth/login/', await call(login as Handler, post('/api/auth/login/', { email: user.email, password })), 200)
    await conforms('post', '/api/auth/login/', await call(login as Handler, post('/api/auth/login/', { email: user.email, password: 'wrong-password' })), 400)
    const auth = { authorization: `Token ${token}` }
    await conforms('get', '/api/auth/profile/', await call(profile as Handler, get('/api/auth/profile/', auth)), 200)
    await conforms('get', '/api/auth/profile/', await call(profile as Handler, get('/api/auth/profile/')), 401)
    await conforms('get', '/api/credits/balance/', await call(balance as Handler, get('/api/credits/balance/', auth)), 200)
    await conforms('get', '/api/credits/balance/', await call(balance as Handler, get('/api/credits/balance/')), 200)
    await conforms('get', '/api/credits/balance/', await call(balance as Handler, get('/api/credits/balance/', { authorization: 'Token nope' })), 401)
    await conforms('get', '/api/credits/packages/', await call(packages as Handler, get('/api/credits/packages/')), 200)
    await conforms('get', '/api/credits/transactions/', await call(transactions as Handler, get('/api/credits/transactions/?limit=5', auth)), 200)
    await conforms('get', '/api/credits/transactions/', await call(transactions as Handler, get('/api/credits/transactions/?limit=500', auth)), 400)
    await conforms('post', '/api/credits/purchase/', await call(purchase as Handler, post('/api/credits/purchase/', { package_id: 'nope' }, auth)), 400)
    await conforms('post', '/api/auth/logout/', await call(logout as Handler, post('/api/auth/logout/', {}, { authorization: `Token ${signedIn.body.token}` })), 204)
  })

  it('matches the answers of the account export and deletion endpoints', async () => {
    const { user, password, token } = await createVerifiedUser()
    const auth = { authorization: `Token ${token}` }
    const remove = (body: unknown, headers: Record<string, string> = auth) => jsonRequest('/api/account/', body, { method: 'DELETE', headers: { 'x-facet-client-ip': uniqueAddress(), ...headers } })
    await conforms('get', '/api/account/export/', await call(exportAccount as Handler, get('/api/account/export/', auth)), 200)
    await conforms('get', '/api/account/export/', await call(exportAccount as Handler, get('/api/account/export/')), 401)
    await conforms('delete', '/api/account/', await call(deleteAccount as Handler, remove({})), 400)
    await conforms('delete', '/api/account/', await call(deleteAccount as Handler, remove({ password }, {})), 401)
    await conforms('delete', '/api/account/', await call(deleteAccount as Handler, remove({ password: 'not-the-password' })), 403)
    const owner = await createVerifiedUser()
    const team = await makeTeam(owner.user.id, 'Documented team')
    await getDb().insertInto('team_members').values({ team_id: team.id, user_id: user.id, role: 'member', monthly_cap: null }).execute()
    await conforms('delete', '/api/account/', await call(deleteAccount as Handler, remove({ password: owner.password }, { authorization: `Token ${owner.token}` })), 409)
    await conforms('delete', '/api/account/', await call(deleteAccount as Handler, remove({ password })), 200)
  })

  it('matches the answers of the key and webhook endpoints', async () => {
    process.env.WEBHOOKS_ALLOW_PRIVATE = 'false'
    const { token } = await createVerifiedUser()
    const auth = { authorization: `Token ${token}` }
    const made = await conforms('post', '/api/keys/', await call(createKey as Handler, post('/api/keys/', { name: 'docs', environment: 'test' }, auth)), 201)
    await conforms('post', '/api/keys/', await call(createKey as Handler, post('/api/keys/', { name: 'docs' }, auth)), 400)
    await conforms('post', '/api/keys/', await call(createKey as Handler, post('/api/keys/', { name: 'x', environment: 'live' }, { authorization: `Bearer ${made.body.key}` })), 403)
    await conforms('get', '/api/keys/', await call(listKeys as Handler, get('/api/keys/', { authorization: `Bearer ${made.body.key}` })), 200)
    await conforms('get', '/api/keys/', await call(listKeys as Handler, get('/api/keys/', { authorization: 'Bearer fs_live_nope' })), 401)

    const hook = await conforms('post', '/api/webhooks/', await call(createWebhook as Handler, post('/api/webhooks/', { url: 'https://93.184.215.14/hook', events: ['job.succeeded'] }, auth)), 201)
    await conforms('post', '/api/webhooks/', await call(createWebhook as Handler, post('/api/webhooks/', { url: 'http://10.0.0.1/hook', events: ['job.succeeded'] }, auth)), 400)
    await conforms('get', '/api/webhooks/', await call(listWebhooks as Handler, get('/api/webhooks/', { authorization: `Bearer ${made.body.key}` })), 200)
    const missing = '00000000-0000-4000-8000-000000000000'
    await conforms('post', '/api/webhooks/deliveries/{id}/redeliver/', await call(redeliver as Handler, new Request(`${BASE}/api/webhooks/deliveries/${missing}/redeliver/`, { method: 'POST', headers: auth }), { id: missing }), 404)
    await conforms('delete', '/api/webhooks/{id}/', await call(removeWebhook as Handler, new Request(`${BASE}/api/webhooks/${hook.body.id}/`, { method: 'DELETE', headers: auth }), { id: hook.body.id }), 204)
    await conforms('delete', '/api/webhooks/{id}/', await call(removeWebhook as Handler, new Request(`${BASE}/api/webhooks/${hook.body.id}/`, { method: 'DELETE', headers: auth }), { id: hook.body.id }), 404)
    await conforms('delete', '/api/keys/{id}/', await call(removeKey as Handler, new Request(`${BASE}/api/keys/${made.body.id}/`, { method: 'DELETE', headers: auth }), { id: made.body.id }), 204)
    await conforms('delete', '/api/keys/{id}/', await call(removeKey as Handler, new Request(`${BASE}/api/keys/${made.body.id}/`, { method: 'DELETE', headers: auth }), { id: made.body.id }), 404)
    delete process.env.WEBHOOKS_ALLOW_PRIVATE
  })

  it('matches the answers of the tool and result endpoints', async () => {
    const { token } = await createVerifiedUser()
    const form = (fields: Record<string, string | Blob>, headers: Record<string, string> = {}) => {
      const body = new FormData()
      for (const [k, v] of Object.entries(fields)) body.append(k, v)
      return (path: string) => new Request(BASE + path, { method: 'POST', body, headers: { 'x-facet-client-ip': uniqueAddress(), ...headers } })
    }
    await conforms('post', '/api/remove-bg/', await call(removeBg as Handler, form({ background: 'white' }, { authorization: `Token ${token}` })('/api/remove-bg/')), 400)
    await conforms('post', '/api/remove-bg/', await call(removeBg as Handler, form({ image: new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }) }, { authorization: `Token ${token}` })('/api/remove-bg/')), 415)
    await conforms('post', '/api/svg2image/convert/', await call(svg as Handler, form({ format: 'png', scale: '1' })('/api/svg2image/convert/')), 401)
    const svgFile = new Blob(['<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="red"/></svg>'], { type: 'image/svg+xml' })
    await conforms('post', '/api/svg2image/convert/', await call(svg as Handler, form({ svg: svgFile, format: 'png', scale: '1' }, { authorization: `Token ${token}` })('/api/svg2image/convert/')), 200)
    await conforms('get', '/api/results/{id}', await call(result as Handler, get('/api/results/00000000-0000-4000-8000-000000000000')), 404)
  })

  // Three background removals on a busy machine: the waits inside stay well short of this limit.
  it('matches the answers of the job and batch endpoints', { timeout: 180_000 }, async () => {
    const { token } = await createVerifiedUser()
    const auth = { authorization: `Token ${token}` }
    const photo = () => new Blob([new Uint8Array(readFileSync('tests/fixtures/photos/noface-rocket.jpg'))], { type: 'image/jpeg' })
    const form = (fields: Array<[string, string | Blob]>, path: string) => {
      const body = new FormData()
      for (const [k, v] of fields) {
        if (v instanceof Blob) body.append(k, v, 'rocket.jpg')
        else body.append(k, v)
      }
      return new Request(BASE + path, { method: 'POST', body, headers: { 'x-facet-client-ip': uniqueAddress(), ...auth } })
    }
    const job = await conforms('post', '/api/jobs/', await call(postJob as Handler, form([['tool', 'background-remover'], ['image', photo()]], '/api/jobs/')), 202)
    await conforms('post', '/api/jobs/', await call(postJob as Handler, form([['tool', 'nope']], '/api/jobs/')), 400)
    const batch = await conforms('post', '/api/batches/', await call(postBatch as Handler, form([['tool', 'background-remover'], ['image', photo()], ['image', photo()]], '/api/batches/')), 202)
    await conforms('post', '/api/batches/', await call(postBatch as Handler, form([['tool', 'background-remover']], '/api/batches/')), 400)
    await conforms('get', '/api/batches/{id}/download/', await call(getBatchDownload as Handler, get(`/api/batches/${batch.body.id}/download/`, auth), { id: batch.body.id }), 409)
    // The job's end is an event of this process's worker: no polling, no guessed wait.
    expect((await waitForJobEnd(job.body.id, 100_000))?.job.status).toBe('succeeded')
    const seen = await conforms('get', '/api/jobs/{id}/', await call(getJob as Handler, get(`/api/jobs/${job.body.id}/`, auth), { id: job.body.id }), 200)
    expect(seen.body.status).toBe('succeeded')
    await conforms('get', '/api/jobs/{id}/answer/', await call(getJobAnswer as Handler, get(`/api/jobs/${job.body.id}/answer/`, auth), { id: job.body.id }), 200)
    await conforms('get', '/api/jobs/{id}/', await call(getJob as Handler, get(`/api/jobs/${job.body.id}/`), { id: job.body.id }), 404)
    const corrections = `/api/jobs/${job.body.id}/corrections/`
    await conforms('get', '/api/jobs/{id}/corrections/', await call(getCorrections as Handler, get(corrections, auth), { id: job.body.id }), 200)
    await conforms('post', '/api/jobs/{id}/corrections/', await call(postCorrections as Handler, form([['feather', '2']], corrections), { id: job.body.id }), 200)
    await conforms('post', '/api/jobs/{id}/corrections/', await call(postCorrections as Handler, form([['feather', '99']], corrections), { id: job.body.id }), 400)
    await conforms('get', '/api/jobs/{id}/corrections/', await call(getCorrections as Handler, get(corrections), { id: job.body.id }), 404)
    await vi.waitFor(async () => {
      const seen = await conforms('get', '/api/batches/{id}/', await call(getBatch as Handler, get(`/api/batches/${batch.body.id}/`, auth), { id: batch.body.id }), 200)
      expect(seen.body.status).toBe('completed')
    }, { timeout: 100_000, interval: 200 })
    await conforms('get', '/api/batches/{id}/download/', await call(getBatchDownload as Handler, get(`/api/batches/${batch.body.id}/download/`, auth), { id: batch.body.id }), 200)
    await conforms('get', '/api/batches/{id}/', await call(getBatch as Handler, get(`/api/batches/${batch.body.id}/`), { id: batch.body.id }), 404)
  })

  it('matches the answers of the team endpoints', async () => {
    const owner = await createVerifiedUser()
    const auth = { authorization: `Token ${owner.token}` }
    const team = await conforms('post', '/api/teams/', await call(createTeam as Handler, post('/api/teams/', { name: 'Docs team' }, auth)), 201)
    await conforms('post', '/api/teams/', await call(createTeam as Handler, post('/api/teams/', { name: '' }, auth)), 400)
    await conforms('get', '/api/teams/', await call(listTeams as Handler, get('/api/teams/', auth)), 200)
    await conforms('get', '/api/teams/', await call(listTeams as Handler, get('/api/teams/')), 401)
    const id = team.body.id
    const memberEmail = uniqueEmail('docs')
    const invite = await conforms('post', '/api/teams/{id}/invites/', await call(inviteToTeam as Handler, post(`/api/teams/${id}/invites/`, { email: memberEmail, role: 'member' }, auth), { id }), 201)
    await conforms('post', '/api/teams/{id}/invites/', await call(inviteToTeam as Handler, post(`/api/teams/${id}/invites/`, { email: 'nope' }, auth), { id }), 400)
    const token = (await linkMailedTo(memberEmail)).pathname.split('/').pop()!
    const other = await createVerifiedUser()
    await conforms('post', '/api/teams/invites/accept/', await call(acceptInvite as Handler, post('/api/teams/invites/accept/', { token }, { authorization: `Token ${other.token}` })), 403)
    const member = await createVerifiedUser({ email: memberEmail })
    await conforms('post', '/api/teams/invites/accept/', await call(acceptInvite as Handler, post('/api/teams/invites/accept/', { token }, { authorization: `Token ${member.token}` })), 200)
    await conforms('post', '/api/teams/invites/accept/', await call(acceptInvite as Handler, post('/api/teams/invites/accept/', { token }, { authorization: `Token ${member.token}` })), 410)
    await conforms('post', '/api/teams/invites/accept/', await call(acceptInvite as Handler, post('/api/teams/invites/accept/', { token: 'unknown' }, { authorization: `Token ${member.token}` })), 404)
    await conforms('delete', '/api/teams/{id}/invites/{invite_id}/', await call(withdrawInvite as Handler, new Request(`${BASE}/api/teams/${id}/invites/${invite.body.id}/`, { method: 'DELETE', headers: auth }), { id, inviteId: invite.body.id }), 410)

    const memberPath = `/api/teams/${id}/members/${member.user.id}/`
    const patch = (body: unknown, headers = auth) => jsonRequest(memberPath, body, { method: 'PATCH', headers: { 'x-facet-client-ip': uniqueAddress(), ...headers } })
    await conforms('patch', '/api/teams/{id}/members/{user_id}/', await call(teamMember as Handler, patch({ cap: 25 }), { id, userId: member.user.id }), 200)
    await conforms('patch', '/api/teams/{id}/members/{user_id}/', await call(teamMember as Handler, patch({}), { id, userId: member.user.id }), 400)
    await conforms('patch', '/api/teams/{id}/members/{user_id}/', await call(teamMember as Handler, patch({ cap: 1 }, { authorization: `Token ${member.token}` }), { id, userId: member.user.id }), 403)
    await conforms('get', '/api/teams/{id}/', await call(getTeam as Handler, get(`/api/teams/${id}/`, auth), { id }), 200)
    await conforms('get', '/api/teams/{id}/', await call(getTeam as Handler, get(`/api/teams/${id}/`, { authorization: `Token ${member.token}` }), { id }), 200)
    await conforms('get', '/api/teams/{id}/', await call(getTeam as Handler, get(`/api/teams/${id}/`, { authorization: `Token ${other.token}` }), { id }), 404)
    await conforms('get', '/api/teams/{id}/activity/', await call(getTeamActivity as Handler, get(`/api/teams/${id}/activity/`, auth), { id }), 200)
    await conforms('get', '/api/teams/{id}/activity/', await call(getTeamActivity as Handler, get(`/api/teams/${id}/activity/?limit=0`, auth), { id }), 400)
    const teamKey = await conforms('post', '/api/keys/', await call(createKey as Handler, post('/api/keys/', { name: 'team', environment: 'live', team_id: id }, auth)), 201)
    await conforms('post', '/api/keys/', await call(createKey as Handler, post('/api/keys/', { name: 'team', environment: 'live', team_id: id }, { authorization: `Token ${member.token}` })), 403)
    await conforms('get', '/api/teams/{id}/', await call(getTeam as Handler, get(`/api/teams/${id}/`, { authorization: `Bearer ${teamKey.body.key}` }), { id }), 403)
    await conforms('get', '/api/credits/balance/', await call(balance as Handler, get('/api/credits/balance/', { ...auth, 'x-team': id })), 200)
    await conforms('get', '/api/credits/balance/', await call(balance as Handler, get('/api/credits/balance/', { authorization: `Token ${other.token}`, 'x-team': id })), 403)
    const remove = (userId: string) => new Request(`${BASE}/api/teams/${id}/members/${userId}/`, { method: 'DELETE', headers: { 'x-facet-client-ip': uniqueAddress(), ...auth } })
    await conforms('delete', '/api/teams/{id}/members/{user_id}/', await call(teamMember as Handler, remove(owner.user.id), { id, userId: owner.user.id }), 409)
    await conforms('delete', '/api/teams/{id}/members/{user_id}/', await call(teamMember as Handler, remove(member.user.id), { id, userId: member.user.id }), 204)
    await conforms('delete', '/api/teams/{id}/members/{user_id}/', await call(teamMember as Handler, remove(member.user.id), { id, userId: member.user.id }), 404)
  })
})
