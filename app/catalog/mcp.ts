// How much /mcp reads and where it is, client-safe: the body-limit table (security) and the request guards (http),
// below the MCP server, name them without loading the SDK (decision 170).
import { TOOLS } from '~/catalog/tools'

export const MCP_PATH = '/mcp'

const LARGEST_FILE_BYTES = Math.max(...Object.values(TOOLS).map((t) => t.maxMegabytes)) * 1024 * 1024

/**
 * The largest JSON-RPC message /mcp reads: one file at the largest tool's limit as base64 (4/3), with
 * room for the envelope. A batch of many large files goes by image_url.
 */
export const MCP_MAX_BODY_BYTES = Math.ceil((LARGEST_FILE_BYTES * 4) / 3) + 64 * 1024
