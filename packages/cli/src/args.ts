// The command line, read once by node:util's parseArgs: a command, its files (a path, a folder or a
// glob, any number of them) and its options. Option values go to the studio as they are: the studio
// checks them and its refusal says what is wrong (one place for each rule).
import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { ToolSlug } from '@facet-studio/sdk'
import { UsageError } from './exit-codes'

type OptionSpec = NonNullable<ParseArgsConfig['options']>

interface ToolCommandSpec {
  tool: ToolSlug
  summary: string
  /** CLI option → the endpoint's form field. */
  fields: Record<string, { field: string; help: string; default?: string }>
  /** The result's name beside its input: photo.jpg → photo-<suffix>.png. */
  suffix: string
}

export const TOOL_COMMANDS: Record<string, ToolCommandSpec> = {
  'remove-bg': {
    tool: 'background-remover',
    summary: 'Cut out the subject (a transparent PNG by default; over --bg, the input\'s type).',
    fields: {
      model: { field: 'model', help: 'auto (default), fast, quality or portrait' },
      format: { field: 'format', help: 'auto (default: PNG, or over --bg the input\'s type), png, webp, jpg (needs --bg) or zip' },
      bg: { field: 'background', help: 'a backdrop colour: #rgb, #rrggbb, white or black' },
    },
    suffix: 'cutout',
  },
  blur: {
    tool: 'face-blurrer',
    summary: 'Blur every face.',
    fields: {
      blur: { field: 'blur', help: 'blur radius, 12 to 60 in steps of 2', default: '32' },
      format: { field: 'format', help: 'auto (default: a JPEG or WebP photo stays one), png, jpg or webp' },
    },
    suffix: 'blurred',
  },
  enhance: {
    tool: 'image-enhancer',
    summary: 'Upscale up to 4x (within a 16 MP output).',
    fields: {
      denoise: { field: 'denoise', help: 'denoise strength, 0 to 1 (default 0.5)' },
      format: { field: 'format', help: 'auto (default: a JPEG or WebP photo stays one), png, jpg or webp' },
    },
    suffix: 'enhanced',
  },
  restore: {
    tool: 'face-restorer',
    summary: 'Restore faces (the portrait comes back at 2x).',
    fields: { format: { field: 'format', help: 'auto (default: a JPEG or WebP photo stays one), png, jpg or webp' } },
    suffix: 'restored',
  },
  svg: {
    tool: 'svg-converter',
    summary: 'Render an SVG to an image.',
    fields: {
      format: { field: 'format', help: 'png (default), jpeg or webp', default: 'png' },
      scale: { field: 'scale', help: '0.75, 1 (default), 2 or 3', default: '1' },
      bg: { field: 'background', help: 'a background colour (default transparent)' },
    },
    suffix: 'image',
  },
}

/** Options every command takes. */
const COMMON: OptionSpec = {
  output: { type: 'string', short: 'o' },
  config: { type: 'string' },
  url: { type: 'string' },
  team: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
}

export interface GlobalOptions {
  /** --config: a config file other than ~/.config/facet/config.json. */
  config?: string
  url?: string
  team?: string
  quiet: boolean
}

export type Command =
  | { kind: 'tool'; name: string; spec: ToolCommandSpec; inputs: string[]; output?: string; fields: Record<string, string>; global: GlobalOptions }
  | { kind: 'balance'; global: GlobalOptions }
  | { kind: 'help'; text: string }
  | { kind: 'version' }

export function usage(): string {
  const lines = [
    'Usage: facet <command> <file|folder|glob>... [options]',
    '',
    'Commands:',
    ...Object.entries(TOOL_COMMANDS).map(([name, spec]) => `  ${name.padEnd(10)} ${spec.summary}`),
    `  ${'balance'.padEnd(10)} Print your balance in credits.`,
    '',
    'One file runs at once and is written to -o (default: beside it, e.g. photo-cutout.png).',
    'A folder, a glob ("shots/*.jpg") or several files run as a batch, with a progress bar, into the',
    'folder -o (default: ./facet-results).',
    '',
    'Options:',
    '  -o, --output <path>  where to write the result (a file; a folder for a batch)',
    ...Object.entries(TOOL_COMMANDS).flatMap(([name, spec]) =>
      Object.entries(spec.fields).map(([option, f]) => `  --${option.padEnd(18)} ${name}: ${f.help}`),
    ),
    '  --url <url>          the studio (default: FACET_URL, else the config file, else http://localhost:3000)',
    '  --team <id>          work as this team: its credits pay (default: FACET_TEAM)',
    '  --config <file>      a config file (default: ~/.config/facet/config.json)',
    '  -q, --quiet          no progress; only the written paths on standard output',
    '',
    'The API key comes from FACET_API_KEY, else the config file\'s "apiKey".',
    'Exit codes: 0 done, 1 usage, 2 refused by the studio (4xx), 3 studio or network failure, 4 some files of a batch failed.',
  ]
  return lines.join('\n')
}

function globalOptions(values: Record<string, string | boolean | (string | boolean)[] | undefined>): GlobalOptions {
  return { config: values.config as string | undefined, url: values.url as string | undefined, team: values.team as string | undefined, quiet: values.quiet === true }
}

export function parseCommandLine(argv: string[]): Command {
  const [name, ...rest] = argv
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') return { kind: 'help', text: usage() }
  if (name === '--version' || name === '-v') return { kind: 'version' }
  const spec = TOOL_COMMANDS[name]
  if (!spec && name !== 'balance') throw new UsageError(`unknown command "${name}". Commands: ${[...Object.keys(TOOL_COMMANDS), 'balance'].join(', ')}.`)

  const own: OptionSpec = {}
  for (const option of Object.keys(spec?.fields ?? {})) own[option] = { type: 'string' }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: rest, options: { ...COMMON, ...own }, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\. To specify a positional argument.*$/s, '.')} See facet --help.`)
  }
  const { values, positionals } = parsed
  if (values.help) return { kind: 'help', text: usage() }
  const global = globalOptions(values)
  if (!spec) {
    if (positionals.length > 0) throw new UsageError('balance takes no file.')
    return { kind: 'balance', global }
  }
  if (positionals.length === 0) throw new UsageError(`${name} needs a file, a folder or a glob. See facet --help.`)
  const fields: Record<string, string> = {}
  for (const [option, field] of Object.entries(spec.fields)) {
    const value = (values[option] as string | undefined) ?? field.default
    if (value !== undefined) fields[field.field] = value
  }
  return { kind: 'tool', name, spec, inputs: positionals, output: values.output as string | undefined, fields, global }
}
