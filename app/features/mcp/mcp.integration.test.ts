// The MCP server through the SDK's own client over Streamable HTTP, the /mcp route answering each
// request in this process: a key is required; the tools run and meter as the API does (charged once,
// the balance told, test keys never charged); max_credits refuses a dearer run and charges nothing;
// quotes and balances are the ledger's; bad input is a tool error with the studio's words.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createApiKey } from '~/features/api-keys/keys.server'
import { createVerifiedUser, uniqueAddress } from '~/features/auth/testing.server'
import { ensureUserAccount, grant } from '~/features/credits/ledger.server'
import { stopBoss } from '~/features/queue/boss.server'
import { teamAccount } from '~/features/teams/membership.server'
import { createTeam } from '~/features/teams/teams.server'
import { action, loader } from '~/routes/mcp'
import { loader as resultLoader } from '~/routes/api.results.$id'
import { fixture } from '../../../tests/support/tools'
import { routeArgs } from '../../../tests/support/requests'
import { MCP_MAX_BODY_BYTES } from '~/catalog/mcp'
import { MCP_KEY_REQUIRED } from './messages'

afterAll(async () => {
  await stopBoss({ timeoutMs: 5_000 })
})

const MCP_URL = 'http://localhost:3000/mcp'

/** The route module as the server mounts it: GET to the loader, everything else to the action. */
async function studio(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init)
  request.headers.set('x-facet-client-ip', address)
  const answer = request.method === 'GET' ? loader(routeArgs(request)) : action(routeArgs(request))
  return answer as Promise<Response>
}
const address = uniqueAddress()

async function keyed(environment: 'live' | 'test') {
  const { user } = await createVerifiedUser()
  const made = await createApiKey(user.id, { name: `mcp ${environment}`, environment })
  if (!made.ok) throw new Error('no key')
  const accountId = await ensureUserAccount(user.id)
  return { accountId, key: made.key.key, userId: user.id }
}

/** A team owned by the key's user, its account funded with `credits`. */
async function fundedTeam(ownerId: string, credits: number) {
  const team = await createTeam(ownerId, `MCP ${Math.random().toString(36).slice(2, 8)}`)
  const account = await teamAccount(team.id)
  await grant({ accountId: account!.accountId, amount: credits, kind: 'adjustment', description: 'Team budget' })
  return { id: team.id, accountId: account!.accountId }
}

async function connect(key: string | null, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'facet-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: studio,
    requestInit: { headers: key ? { Authorization: `Bearer ${key}`, ...headers } : headers },
  })
  await client.connect(transport)
  return client
}

function facts(result: Awaited<ReturnType<Client['callTool']>>): Record<string, any> {
  const content = result.content as Array<{ type: string; text?: string }>
  return JSON.parse(content.find((c) => c.type === 'text')!.text!)
}

async function balanceOf(accountId: string): Promise<number> {
  const row = await getDb().selectFrom('credit_accounts').select('balance').where('id', '=', accountId).executeTakeFirstOrThrow()
  return Number(row.balance)
}

/** The balance after the day's first request (its daily top-up), as the agent is told it. */
async function toldBalance(client: Client): Promise<number> {
  return facts(await client.callTool({ name: 'get_balance', arguments: {} })).balance
}

async function ledgerRows(accountId: string): Promise<number> {
  const rows = await getDb().selectFrom('credit_transactions').select('id').where('account_id', '=', accountId).where('kind', '=', 'consume').execute()
  return rows.length
}

const rocket = () => fixture('photos/noface-rocket.jpg').toString('base64')

describe('the MCP server', () => {
  it('refuses a client without a studio API key, saying how to send one', async () => {
    await expect(connect(null)).rejects.toThrow(/401|API key/)
    const answer = await studio(MCP_URL, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' })
    expect(answer.status).toBe(401)
    expect((await answer.json()).error.message).toBe(MCP_KEY_REQUIRED)
  })

  it('answers a message past its limit with 413 before reading it, and counts the call against the key', async () => {
    const { key } = await keyed('test')
    const body = Buffer.alloc(MCP_MAX_BODY_BYTES + 1, 0x20)
    const answer = await studio(MCP_URL, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(body.byteLength) },
      body,
    })
    expect(answer.status).toBe(413)
    expect(answer.headers.get('RateLimit-Limit')).toMatch(/^\d+$/)
  })

  it('lists the five tools, the batch, the balance and the quote, with typed options', async () => {
    const { key } = await keyed('test')
    const client = await connect(key)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['batch_status', 'blur_faces', 'convert_svg', 'enhance_image', 'get_balance', 'quote_price', 'remove_background', 'report_wrong_result', 'restore_faces', 'run_batch'].sort(),
    )
    const remover = tools.find((t) => t.name === 'remove_background')!
    const properties = remover.inputSchema.properties as Record<string, { enum?: string[] }>
    expect(properties.format?.enum).toEqual(['auto', 'png', 'jpg', 'webp', 'zip'])
    // The other raster tools take the same choices, auto (following the upload) first (decision 173).
    const blurrer = tools.find((t) => t.name === 'blur_faces')!.inputSchema.properties as Record<string, { enum?: string[] }>
    expect(blurrer.format?.enum).toEqual(['auto', 'png', 'jpg', 'webp'])
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(['image', 'image_url', 'max_credits', 'idempotency_key', 'team', 'background', 'crop']))
    expect((tools.find((t) => t.name === 'blur_faces')!.inputSchema.required as string[]) ?? []).toContain('blur')
    await client.close()
  })

  it('runs a tool for a live key: the image comes back, charged once, the balance told and equal to the ledger', async () => {
    const { accountId, key } = await keyed('live')
    const client = await connect(key)
    const before = await toldBalance(client)
    expect(before).toBe(await balanceOf(accountId))
    const result = await client.callTool({ name: 'remove_background', arguments: { image: rocket(), filename: 'rocket.jpg', max_credits: 1 } })
    expect(result.isError ?? false).toBe(false)
    const image = (result.content as Array<{ type: string; data?: string; mimeType?: string }>).find((c) => c.type === 'image')!
    expect(image.mimeType).toBe('image/png')
    const meta = await sharp(Buffer.from(image.data!, 'base64')).metadata()
    expect([meta.width, meta.height, meta.channels]).toEqual([640, 427, 4])
    const told = facts(result)
    expect(told.credits_charged).toBe(1)
    expect(told.credits_remaining).toBe(before - 1)
    expect(await balanceOf(accountId)).toBe(before - 1)
    expect(await ledgerRows(accountId)).toBe(1)
    expect(told.result_url).toMatch(new RegExp(`/api/results/[^/?]+\\?expires=\\d+&signature=`))
    await client.close()
  })

  it('answers the link alone when asked (return_image: false), and the link opens the result with no key', async () => {
    const { accountId, key } = await keyed('live')
    const client = await connect(key)
    const before = await toldBalance(client)
    const result = await client.callTool({ name: 'remove_background', arguments: { image: rocket(), return_image: false } })
    expect(result.isError ?? false).toBe(false)
    const content = result.content as Array<{ type: string }>
    expect(content.map((c) => c.type)).toEqual(['text'])
    const told = facts(result)
    expect(told).toMatchObject({ credits_charged: 1, credits_remaining: before - 1, job_id: expect.any(String) })
    const link = new URL(told.result_url)
    const id = /\/api\/results\/([^/]+)$/.exec(link.pathname)![1]!
    const opened = (await resultLoader(routeArgs(new Request(link), { id }))) as Response
    expect(opened.status).toBe(200)
    expect(opened.headers.get('Content-Type')).toBe('image/png')
    const meta = await sharp(Buffer.from(await opened.arrayBuffer())).metadata()
    expect([meta.width, meta.height, meta.channels]).toEqual([640, 427, 4])
    expect(await balanceOf(accountId)).toBe(before - 1)
    await client.close()
  })

  it('never runs or charges twice for one idempotency key', async () => {
    const { accountId, key } = await keyed('live')
    const client = await connect(key)
    const before = await toldBalance(client)
    const call = () => client.callTool({ name: 'blur_faces', arguments: { image: fixture('photos/portrait-astronaut.png').toString('base64'), blur: '24', idempotency_key: 'mcp-once' } })
    const first = facts(await call())
    const again = facts(await call())
    expect(first).toMatchObject({ credits_charged: 1, faces_found: 1 })
    expect(again).toMatchObject({ credits_charged: 0, faces_found: 1 })
    expect(await balanceOf(accountId)).toBe(before - 1)
    expect(await ledgerRows(accountId)).toBe(1)
    await client.close()
  })

  it('refuses a run dearer than max_credits, charging nothing', async () => {
    const { accountId, key } = await keyed('live')
    const client = await connect(key)
    const before = await toldBalance(client)
    const result = await client.callTool({ name: 'enhance_image', arguments: { image: rocket(), max_credits: 1 } })
    expect(result.isError).toBe(true)
    expect(facts(result)).toMatchObject({ error: expect.stringMatching(/costs 2 credits, more than max_credits \(1\)/), credits_charged: 0, cost: 2 })
    expect(await balanceOf(accountId)).toBe(before)
    expect(await ledgerRows(accountId)).toBe(0)
    await client.close()
  })

  it('quotes and tells the balance; a test key is quoted and charged nothing', async () => {
    const live = await keyed('live')
    const client = await connect(live.key)
    const quote = facts(await client.callTool({ name: 'quote_price', arguments: { tool: 'image-enhancer', count: 3 } }))
    expect(quote).toMatchObject({ credits_per_run: 2, total: 6, balance: await balanceOf(live.accountId), enough: true, test_mode: false })
    expect(facts(await client.callTool({ name: 'get_balance', arguments: {} }))).toEqual({ balance: await balanceOf(live.accountId), test_mode: false })
    await client.close()

    const test = await keyed('test')
    const testClient = await connect(test.key)
    const before = await toldBalance(testClient)
    expect(facts(await testClient.callTool({ name: 'quote_price', arguments: { tool: 'image-enhancer' } }))).toMatchObject({ total: 0, test_mode: true })
    const run = await testClient.callTool({ name: 'blur_faces', arguments: { image: rocket(), blur: '24', max_credits: 0 } })
    expect(run.isError ?? false).toBe(false)
    expect(facts(run)).toMatchObject({ credits_charged: 0, test_mode: true })
    expect(await balanceOf(test.accountId)).toBe(before)
    await testClient.close()
  })

  it('answers bad input with the studio\'s words, as a tool error, charging nothing', async () => {
    const { accountId, key } = await keyed('live')
    const client = await connect(key)
    const before = await toldBalance(client)
    const notBase64 = await client.callTool({ name: 'remove_background', arguments: { image: 'not base64 at all!' } })
    expect(facts(notBase64).error).toMatch(/not base64/)
    const both = await client.callTool({ name: 'remove_background', arguments: { image: rocket(), image_url: 'https://example.com/a.jpg' } })
    expect(facts(both).error).toMatch(/not both or neither/)
    const badOption = await client.callTool({ name: 'remove_background', arguments: { image: rocket(), crop: 'true', scale: '50%' } })
    expect(badOption.isError).toBe(true)
    expect(facts(badOption)).toMatchObject({ status: 400, error: expect.stringContaining('crop cannot be combined') })
    const privateUrl = await client.callTool({ name: 'remove_background', arguments: { image_url: 'http://127.0.0.1/photo.jpg' } })
    expect(facts(privateUrl).error).toMatch(/public address/)
    const notAnImage = await client.callTool({ name: 'remove_background', arguments: { image: Buffer.from('hello').toString('base64') } })
    expect(notAnImage.isError).toBe(true)
    expect(facts(notAnImage).status).toBe(415)
    expect(await balanceOf(accountId)).toBe(before)
    await client.close()
  })

  it('works as a team, by argument or by the X-Team header: the team pays and is told; a team not the caller\'s is refused, charging nothing', async () => {
    const { accountId, key, userId } = await keyed('live')
    const team = await fundedTeam(userId, 20)
    const client = await connect(key)
    const own = await toldBalance(client)
    expect(facts(await client.callTool({ name: 'get_balance', arguments: { team: team.id } }))).toMatchObject({ balance: 20 })
    const run = await client.callTool({ name: 'remove_background', arguments: { image: rocket(), team: team.id, max_credits: 1 } })
    expect(run.isError ?? false).toBe(false)
    expect(facts(run)).toMatchObject({ credits_charged: 1, credits_remaining: 19 })
    expect(await balanceOf(team.accountId)).toBe(19)
    expect(await ledgerRows(team.accountId)).toBe(1)

    const stranger = await keyed('live')
    const notTheirs = await fundedTeam(stranger.userId, 20)
    const refused = await client.callTool({ name: 'blur_faces', arguments: { image: rocket(), blur: '24', team: notTheirs.id } })
    expect(refused.isError).toBe(true)
    expect(facts(refused)).toMatchObject({ status: 403 })
    expect(await balanceOf(notTheirs.accountId)).toBe(20)
    await client.close()

    const asTeam = await connect(key, { 'X-Team': team.id })
    expect(await toldBalance(asTeam)).toBe(19)
    expect(facts(await asTeam.callTool({ name: 'remove_background', arguments: { image: rocket() } }))).toMatchObject({ credits_charged: 1, credits_remaining: 18 })
    await asTeam.close()
    expect(await balanceOf(team.accountId)).toBe(18)
    expect(await balanceOf(accountId)).toBe(own)
    expect(await ledgerRows(accountId)).toBe(0)
  })

  it('starts a batch and follows it', async () => {
    const { key } = await keyed('test')
    const client = await connect(key)
    const started = facts(await client.callTool({ name: 'run_batch', arguments: { tool: 'background-remover', files: [{ image: rocket(), filename: 'a.jpg' }, { image: rocket(), filename: 'b.jpg' }] } }))
    expect(started).toMatchObject({ total: 2, credits_charged: 0, status_url: expect.stringContaining(`/api/batches/${started.batch_id}/`) })
    const status = facts(await client.callTool({ name: 'batch_status', arguments: { batch_id: started.batch_id } }))
    expect(status.id).toBe(started.batch_id)
    expect(status.items ?? status.files).toHaveLength(2)
    const missing = await client.callTool({ name: 'batch_status', arguments: { batch_id: '00000000-0000-4000-8000-000000000000' } })
    expect(facts(missing)).toMatchObject({ status: 404 })
    await client.close()
  })
})
