// The MCP server's tool names and its own words (the studio's refusals reach the agent as the API says them).
import type { ToolSlug } from '~/catalog/tools'

/** Tool names as agents see them: verbs, snake_case, as MCP clients list them. */
export const MCP_TOOL_NAMES: Record<ToolSlug, string> = {
  'background-remover': 'remove_background',
  'face-restorer': 'restore_faces',
  'face-blurrer': 'blur_faces',
  'image-enhancer': 'enhance_image',
  'svg-converter': 'convert_svg',
}

export const MCP_KEY_REQUIRED = 'The MCP server needs a studio API key: send it as "Authorization: Bearer fs_live_…" (or fs_test_… for test mode). Create one on your dashboard.'

export const mcpMessages = {
  overBudget: (cost: number, max: number) => `This run costs ${cost} credit${cost === 1 ? '' : 's'}, more than max_credits (${max}): nothing was run or charged.`,
  oneFile: (field: string) => `Send the file once: as ${field} or as image_url, not both or neither.`,
  notBase64: 'The file is not base64: send the file\'s bytes base64-encoded (or an image_url).',
  priceLine: (cost: number) => `Costs ${cost} credit${cost === 1 ? '' : 's'} a run.`,
}
