// npm run --silent mcp: the studio's MCP server over stdio, for clients that start their servers as
// processes (desktop assistants, IDEs). It relays every request to a running studio's /mcp over
// Streamable HTTP, so the tools, limits and ledger are the studio's own, and it never opens the
// database itself (an embedded studio's data folder belongs to the studio's process).
//   FACET_API_KEY  a studio API key (fs_live_… or fs_test_…), required
//   FACET_URL      the studio's address (default http://localhost:3000)
//   FACET_TEAM     work as this team (X-Team), optional
// Standard output carries the protocol only: npm's own banner would break it, hence --silent.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/** Past the studio's own time limit for a run (TOOL_TIMEOUT_MS, 120 s by default): the studio answers first. */
const CALL_TIMEOUT_MS = 180_000

function fail(message: string): never {
  process.stderr.write(`facet mcp: ${message}\n`)
  process.exit(1)
}

const key = process.env.FACET_API_KEY
if (!key) fail('set FACET_API_KEY to a studio API key (create one on your dashboard).')
const studio = new URL('/mcp', process.env.FACET_URL ?? 'http://localhost:3000')
const headers: Record<string, string> = { Authorization: `Bearer ${key}` }
if (process.env.FACET_TEAM) headers['X-Team'] = process.env.FACET_TEAM

const remote = new Client({ name: 'facet-studio-stdio', version: '1.0.0' })
try {
  await remote.connect(new StreamableHTTPClientTransport(studio, { requestInit: { headers } }))
} catch (error) {
  fail(`cannot reach the studio's MCP server at ${studio}: ${(error as Error).message}`)
}

const local = new Server(remote.getServerVersion() ?? { name: 'facet-studio', version: '1.0.0' }, { capabilities: { tools: {} } })
local.setRequestHandler(ListToolsRequestSchema, (request) => remote.listTools(request.params))
local.setRequestHandler(CallToolRequestSchema, (request) => remote.callTool(request.params, undefined, { timeout: CALL_TIMEOUT_MS }))
local.onclose = () => void remote.close().finally(() => process.exit(0))
await local.connect(new StdioServerTransport())
// The SDK's stdio transport does not close when its input ends: a client that closes our stdin (the usual way
// to stop a stdio server) would otherwise leave this process running, holding its session on the studio.
process.stdin.once('end', () => void local.close())
