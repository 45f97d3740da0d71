// The studio's tools as an MCP server: the five image tools, a batch and its status, the balance and a
// price quote. Each paid tool takes `max_credits` and refuses, charging nothing, when the run would cost
// more; every answer says what was charged and what is left. The runs themselves are the API's
// (studio-calls.server.ts): same key, limits, team, idempotency, ledger.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { TOOL_APIS, type ToolField } from '~/features/api-docs/tool-fields'
import { fetchRemoteImage, RemoteImageError } from '~/features/removebg/remote-image.server'
import { toolCost } from '~/features/tools/costs.server'
import { fileTooLargeMessage } from '~/features/tools/upload.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { MAX_BATCH_FILES } from '~/catalog/batches'
import { config } from '~/config.server'
import { balance, batchStatus, creditsOf, reportWrongResult, signedResultLinkOf, runTool, startBatch, storedResult, type CallOptions, type McpCaller, type McpFile } from './studio-calls.server'
import { NOTE_MAX_CHARS, REPORT_HINT } from '~/catalog/feedback'
import { MCP_TOOL_NAMES, mcpMessages } from './messages'

const VERSION = '1.0.0'

/** The fields of a tool's API call that are options (its files are the agent's `image`/`image_url`). */
function optionFields(tool: ToolSlug): ToolField[] {
  const api = TOOL_APIS.find((a) => a.tool.slug === tool)!
  return api.fields.filter((f) => f.name !== TOOLS[tool].fileField && f.schema.contentMediaType === undefined)
}

/** A multipart field's JSON Schema as a zod string schema: an enum stays an enum, a pattern stays a pattern. */
function fieldSchema(field: ToolField): z.ZodType<string | undefined> {
  const values = field.schema.enum as string[] | undefined
  let schema: z.ZodType<string> = values ? z.enum(values as [string, ...string[]]) : typeof field.schema.pattern === 'string' ? z.string().regex(new RegExp(field.schema.pattern)) : z.string()
  schema = schema.describe(field.description)
  return field.required ? schema : schema.optional()
}

/** Each tool's option fields and their schemas, built once per process (a server is built per request). */
const TOOL_OPTIONS = new Map(
  TOOL_APIS.map((api) => {
    const fields = optionFields(api.tool.slug)
    return [api.tool.slug, { fields, schemas: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])) }] as const
  }),
)

const fileInput = (tool: ToolSlug) => ({
  [tool === 'svg-converter' ? 'svg' : 'image']: z
    .string()
    .optional()
    .describe(tool === 'svg-converter' ? 'The SVG document, as text or base64.' : `The image file as base64 (up to ${TOOLS[tool].maxMegabytes} MB).`),
  image_url: z.string().url().optional().describe('Instead of the file: a public http(s) URL the studio fetches (private and loopback addresses are refused).'),
  filename: z.string().max(255).optional().describe('The file name, for the download name.'),
})

const metering = {
  max_credits: z.number().int().min(0).optional().describe('The most this call may cost. A run that would cost more is refused and nothing is charged.'),
  idempotency_key: z.string().min(1).max(255).optional().describe('As the API\'s Idempotency-Key: the same key and request never run or charge twice.'),
  team: z.string().min(1).optional().describe('Work as this team (its id), as X-Team on the API: the team pays.'),
}

const delivery = {
  return_image: z
    .boolean()
    .optional()
    .describe('false: answer result_url (a link anyone holding it can open for an hour) without the image itself, for results too large to carry in a message. Default true: both.'),
}

function text(value: unknown): CallToolResult['content'][number] {
  return { type: 'text', text: JSON.stringify(value) }
}

function refused(message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [text({ error: message, credits_charged: 0, ...extra })] }
}

/** The price of `count` runs for this caller: test keys are never charged. */
function price(caller: McpCaller, tool: ToolSlug, count = 1): number {
  return caller.testMode ? 0 : toolCost(tool) * count
}

function overBudget(caller: McpCaller, tool: ToolSlug, count: number, maxCredits: number | undefined): CallToolResult | null {
  const cost = price(caller, tool, count)
  if (maxCredits === undefined || cost <= maxCredits) return null
  return refused(mcpMessages.overBudget(cost, maxCredits), { cost })
}

type FileArgs = { image?: string; svg?: string; image_url?: string; filename?: string }

/** The agent's file as bytes: base64 (or SVG text), or fetched from a public URL through the address guard. */
async function fileFrom(tool: ToolSlug, args: FileArgs): Promise<McpFile | string> {
  const inline = args.image ?? args.svg
  if ((inline === undefined) === (args.image_url === undefined)) return mcpMessages.oneFile(tool === 'svg-converter' ? 'svg' : 'image')
  const maxBytes = TOOLS[tool].maxMegabytes * 1024 * 1024
  const filename = args.filename ?? (tool === 'svg-converter' ? 'drawing.svg' : 'image')
  if (args.image_url !== undefined) {
    try {
      return { bytes: await fetchRemoteImage(args.image_url, maxBytes), filename }
    } catch (error) {
      if (error instanceof RemoteImageError) return error.message
      throw error
    }
  }
  const raw = inline!.trim()
  if (tool === 'svg-converter' && raw.startsWith('<')) return { bytes: Buffer.from(raw, 'utf8'), filename }
  if (!/^[A-Za-z0-9+/\r\n]*={0,2}$/.test(raw)) return mcpMessages.notBase64
  const bytes = Buffer.from(raw, 'base64')
  if (bytes.byteLength === 0) return mcpMessages.notBase64
  if (bytes.byteLength > maxBytes) return fileTooLargeMessage(tool)
  return { bytes, filename }
}

async function errorOf(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as { error?: string } | null
  return body?.error ?? `The studio answered ${response.status}.`
}

/**
 * A tool's answer: the image itself (unless the agent asked for the link only), and a line of facts
 * (charge, balance, the job and a signed link to its result).
 */
async function answerOf(caller: McpCaller, response: Response, options: CallOptions & { returnImage: boolean }): Promise<CallToolResult> {
  const credits = creditsOf(response)
  if (!response.ok) return refused(await errorOf(response), { status: response.status, credits_charged: credits.charged, credits_remaining: credits.remaining })
  const jobId = response.headers.get('X-Facet-Job-Id')
  const resultUrl = jobId ? await signedResultLinkOf(jobId) : null
  const facts: Record<string, unknown> = {
    credits_charged: credits.charged,
    credits_remaining: credits.remaining,
    ...(jobId ? { job_id: jobId, job_url: new URL(`/api/jobs/${jobId}/`, config().PUBLIC_URL).toString() } : {}),
    ...(resultUrl ? { result_url: resultUrl } : {}),
    ...(response.headers.get('X-Facet-Note') ? { note: response.headers.get('X-Facet-Note') } : {}),
    ...(response.headers.get('X-Facet-Model') ? { model: response.headers.get('X-Facet-Model') } : {}),
    ...(response.headers.get('X-Faces-Found') ? { faces_found: Number(response.headers.get('X-Faces-Found')) } : {}),
    ...(caller.testMode ? { test_mode: true } : {}),
  }
  const type = response.headers.get('Content-Type') ?? ''
  if (type.startsWith('application/json')) {
    // The restorer answers a link to its stored result (spec §7): the image is read from there.
    const body = (await response.json()) as { restored_url?: string }
    if (!body.restored_url) return { content: [text({ ...body, ...facts })] }
    facts.result_url = new URL(body.restored_url, config().PUBLIC_URL).toString()
    const result = options.returnImage ? await storedResult(caller, body.restored_url, options) : null
    return { content: [...(result ? [{ type: 'image' as const, data: result.bytes.toString('base64'), mimeType: result.contentType }] : []), text({ ...body, ...facts })] }
  }
  if (!options.returnImage && resultUrl) {
    await response.body?.cancel()
    return { content: [text(facts)] }
  }
  const bytes = Buffer.from(await response.arrayBuffer())
  if (!type.startsWith('image/')) return { content: [{ type: 'resource', resource: { uri: 'facet:result', mimeType: type, blob: bytes.toString('base64') } }, text(facts)] }
  return { content: [{ type: 'image', data: bytes.toString('base64'), mimeType: type.split(';')[0]! }, text(facts)] }
}

/** One MCP server per request (the transport is stateless): its tools act for `caller`. */
export function buildStudioMcpServer(caller: McpCaller): McpServer {
  const server = new McpServer({ name: 'facet-studio', version: VERSION })

  for (const api of TOOL_APIS) {
    const tool = api.tool.slug
    const options = TOOL_OPTIONS.get(tool)!
    server.registerTool(
      MCP_TOOL_NAMES[tool],
      {
        title: api.tool.name,
        description: `${api.tool.description} ${mcpMessages.priceLine(price(caller, tool))} ${api.answer}`,
        inputSchema: { ...fileInput(tool), ...options.schemas, ...metering, ...delivery },
      },
      async (args: Record<string, unknown>) => {
        const over = overBudget(caller, tool, 1, args.max_credits as number | undefined)
        if (over) return over
        const file = await fileFrom(tool, args as FileArgs)
        if (typeof file === 'string') return refused(file)
        const fields = Object.fromEntries(options.fields.flatMap((f) => (typeof args[f.name] === 'string' ? [[f.name, args[f.name] as string]] : [])))
        const team = args.team as string | undefined
        const response = await runTool(caller, tool, file, fields, { team, idempotencyKey: args.idempotency_key as string | undefined })
        return answerOf(caller, response, { team, returnImage: args.return_image !== false })
      },
    )
  }

  server.registerTool(
    'run_batch',
    {
      title: 'Batch',
      description: `Runs one tool over up to ${MAX_BATCH_FILES} files. Answers at once with the batch's id; each file is charged when its run starts (test keys: never), and batch_status follows it.`,
      inputSchema: {
        tool: z.enum(Object.keys(TOOLS) as [ToolSlug, ...ToolSlug[]]).describe('Which tool every file goes through.'),
        files: z
          .array(z.object({ image: z.string().optional(), svg: z.string().optional(), image_url: z.string().url().optional(), filename: z.string().max(255).optional() }))
          .min(1)
          .max(MAX_BATCH_FILES)
          .describe('Each file as base64 (svg: text or base64), or a public URL.'),
        options: z.record(z.string(), z.string()).optional().describe('The tool\'s option fields, as on its API endpoint (for example {"blur": "24"}).'),
        max_credits: metering.max_credits,
        team: metering.team,
      },
    },
    async ({ tool, files, options, max_credits, team }) => {
      const over = overBudget(caller, tool, files.length, max_credits)
      if (over) return over
      const read: McpFile[] = []
      for (const [index, file] of files.entries()) {
        const got = await fileFrom(tool, { ...file, filename: file.filename ?? `file-${index + 1}` })
        if (typeof got === 'string') return refused(`File ${index + 1}: ${got}`)
        read.push(got)
      }
      const response = await startBatch(caller, tool, read, options ?? {}, { team })
      const credits = creditsOf(response)
      if (!response.ok) return refused(await errorOf(response), { status: response.status })
      const body = (await response.json()) as { id: string; total: number; skipped: unknown }
      return { content: [text({ batch_id: body.id, total: body.total, skipped: body.skipped, status_url: new URL(`/api/batches/${body.id}/`, config().PUBLIC_URL).toString(), credits_charged: credits.charged, credits_remaining: credits.remaining })] }
    },
  )

  server.registerTool(
    'batch_status',
    {
      title: 'Batch status',
      description: 'A batch\'s counts and every file\'s status; once it has ended, download_url gives the zip of results (send your key).',
      inputSchema: { batch_id: z.string().min(1), team: metering.team },
    },
    async ({ batch_id, team }) => {
      const response = await batchStatus(caller, batch_id, { team })
      if (!response.ok) return refused(await errorOf(response), { status: response.status })
      return { content: [text(await response.json())] }
    },
  )

  server.registerTool(
    'get_balance',
    { title: 'Balance', description: 'The credits left: yours, or the team\'s when working as a team.', inputSchema: { team: metering.team } },
    async ({ team }) => {
      const got = await balance(caller, { team })
      if ('error' in got) return refused(got.error, { status: got.status })
      return { content: [text({ balance: got.balance, test_mode: caller.testMode })] }
    },
  )

  server.registerTool(
    'quote_price',
    {
      title: 'Price quote',
      description: 'What runs of a tool would cost now, and whether the balance covers them. Nothing is charged.',
      inputSchema: {
        tool: z.enum(Object.keys(TOOLS) as [ToolSlug, ...ToolSlug[]]),
        count: z.number().int().min(1).max(MAX_BATCH_FILES).optional().describe('How many runs (default 1).'),
        team: metering.team,
      },
    },
    async ({ tool, count = 1, team }) => {
      const got = await balance(caller, { team })
      if ('error' in got) return refused(got.error, { status: got.status })
      const total = price(caller, tool, count)
      return { content: [text({ tool, count, credits_per_run: price(caller, tool), total, balance: got.balance, enough: got.balance >= total, test_mode: caller.testMode })] }
    },
  )

  server.registerTool(
    'report_wrong_result',
    {
      title: 'Report a wrong result',
      description: `Reports a result of yours as wrong (job_id: the job_id a tool's answer gave), with an optional note saying what is wrong. One report a job: reporting again replaces the note. Free. ${REPORT_HINT}`,
      inputSchema: {
        job_id: z.string().uuid().describe('The job whose result is wrong (job_id in a tool\'s answer).'),
        note: z.string().max(NOTE_MAX_CHARS).optional().describe('What is wrong with it.'),
        team: metering.team,
      },
    },
    async ({ job_id, note, team }) => {
      const response = await reportWrongResult(caller, job_id, note, { team })
      if (!response.ok) return refused(await errorOf(response), { status: response.status })
      return { content: [text(await response.json())] }
    },
  )

  return server
}
