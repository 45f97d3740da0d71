// The MCP server over Streamable HTTP at /mcp: every request carries a studio API key (Bearer), is
// counted against that key's rate limit like any /api call, and gets a server of its own (stateless:
// any web process answers any request, nothing is kept between them).
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { TEAM_HEADER } from '~/features/account/caller.server'
import { ENVIRONMENT_HEADER, TEST_MODE_VALUE } from '~/features/api-keys/environments'
import { apiKeyGate } from '~/features/api-keys/gate.server'
import { CLIENT_ADDRESS_HEADER } from '~/features/security/client-address.server'
import { MCP_MAX_BODY_BYTES } from '~/catalog/mcp'
import { MCP_KEY_REQUIRED } from './messages'
import { buildStudioMcpServer } from './tools.server'

export async function handleMcpRequest(request: Request): Promise<Response> {
  const authorization = request.headers.get('authorization')
  const gate = await apiKeyGate(authorization)
  if (!gate) {
    return Response.json(
      { jsonrpc: '2.0', error: { code: -32001, message: MCP_KEY_REQUIRED }, id: null },
      { status: 401, headers: { 'WWW-Authenticate': 'Bearer', 'Cache-Control': 'no-store' } },
    )
  }
  if (gate.refusal) {
    return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: gate.refusal.body.error }, id: null }, { status: gate.refusal.status, headers: gate.headers })
  }
  const server = buildStudioMcpServer({
    authorization: authorization!,
    team: request.headers.get(TEAM_HEADER),
    testMode: gate.headers[ENVIRONMENT_HEADER] === TEST_MODE_VALUE,
    clientAddress: request.headers.get(CLIENT_ADDRESS_HEADER),
  })
  // JSON answers, not an event stream: a tool call is one request and one answer, which every proxy passes.
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MCP_MAX_BODY_BYTES })
  await server.connect(transport)
  try {
    const answer = await transport.handleRequest(request)
    const headers = new Headers(answer.headers)
    for (const [name, value] of Object.entries(gate.headers)) headers.set(name, value)
    headers.set('Cache-Control', 'no-store')
    return new Response(await answer.arrayBuffer(), { status: answer.status, headers })
  } finally {
    await server.close()
  }
}
