// /mcp: the studio's MCP server over Streamable HTTP (app/features/mcp). POST carries JSON-RPC; GET
// (a server-sent event stream) and DELETE (a session's end) answer 405, as a stateless server may.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { handleMcpRequest } from '~/features/mcp/http.server'

export const action = ({ request }: ActionFunctionArgs) => handleMcpRequest(request)
export const loader = ({ request }: LoaderFunctionArgs) => handleMcpRequest(request)
