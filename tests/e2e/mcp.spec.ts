// The MCP server as an agent's client meets it, against this running studio: the SDK's own client over
// Streamable HTTP (/mcp) and over stdio (`npm run --silent mcp`, the command the /api page gives), each
// listing the tools and running one, with a real key; a live key's run is charged once and says so.
import { readFileSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { expect, test } from './support/test'
import { fixture, signInNewUser } from './support/tools'

type Content = Array<{ type: string; text?: string; data?: string; mimeType?: string }>

function factsOf(content: Content): Record<string, unknown> {
  return JSON.parse(content.find((c) => c.type === 'text')!.text!)
}

async function newKey(page: import('@playwright/test').Page, environment: 'live' | 'test'): Promise<string> {
  await signInNewUser(page)
  const made = await page.request.post('/api/keys/', { data: { name: `MCP ${environment}`, environment } })
  expect(made.status(), await made.text()).toBe(201)
  return ((await made.json()) as { key: string }).key
}

test('an agent reaches the studio over Streamable HTTP at /mcp with a live key, charged once', { tag: '@js-only' }, async ({ page, baseURL }) => {
  const key = await newKey(page, 'live')
  const client = new Client({ name: 'journey', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseURL), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }))
  const { tools } = await client.listTools()
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['remove_background', 'blur_faces', 'quote_price', 'get_balance']))

  const before = factsOf((await client.callTool({ name: 'get_balance', arguments: {} })).content as Content).balance as number
  const result = await client.callTool({ name: 'remove_background', arguments: { image: readFileSync(fixture('photos/noface-rocket.jpg')).toString('base64'), max_credits: 1 } })
  const content = result.content as Content
  expect(content.find((c) => c.type === 'image')?.mimeType).toBe('image/png')
  expect(factsOf(content)).toMatchObject({ credits_charged: 1, credits_remaining: before - 1 })
  await client.close()
})

test('an agent starts the studio\'s MCP server over stdio with `npm run --silent mcp`', { tag: '@js-only' }, async ({ page, baseURL }) => {
  const key = await newKey(page, 'test')
  const client = new Client({ name: 'journey-stdio', version: '1.0.0' })
  const transport = new StdioClientTransport({
    command: 'npm',
    args: ['run', '--silent', 'mcp'],
    env: { ...(process.env as Record<string, string>), FACET_URL: baseURL!, FACET_API_KEY: key },
    stderr: 'pipe',
  })
  await client.connect(transport)
  const { tools } = await client.listTools()
  expect(tools.find((t) => t.name === 'blur_faces')?.inputSchema.required).toContain('blur')
  const result = await client.callTool({ name: 'blur_faces', arguments: { image: readFileSync(fixture('photos/portrait-astronaut.png')).toString('base64'), blur: '24' } })
  const content = result.content as Content
  expect(content.find((c) => c.type === 'image')?.mimeType).toBe('image/png')
  expect(factsOf(content)).toMatchObject({ credits_charged: 0, faces_found: 1, test_mode: true })
  await client.close()
})
