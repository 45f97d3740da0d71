// Where the command finds the studio and its key: the command line, then the environment, then a config
// file (~/.config/facet/config.json, or --config). The key is never an option: a key typed on the command
// line stays in the shell's history and shows in the process list.
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { GlobalOptions } from './args'
import { UsageError } from './exit-codes'

export const DEFAULT_URL = 'http://localhost:3000'

/** The environment variables read here (process.env, or a test's own). */
export type Env = Record<string, string | undefined>

export interface Settings {
  url: string
  apiKey: string
  team?: string
}

interface ConfigFile {
  url?: string
  apiKey?: string
  team?: string
}

export function defaultConfigPath(env: Env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'facet', 'config.json')
}

function readConfig(path: string, required: boolean): ConfigFile {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw new UsageError(`cannot read the config file ${path}: ${(error as Error).message}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new UsageError(`the config file ${path} is not JSON: write {"apiKey": "fs_live_…", "url": "http://localhost:3000"}.`)
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`the config file ${path} must hold a JSON object.`)
  const config = parsed as Record<string, unknown>
  for (const field of ['url', 'apiKey', 'team'] as const) {
    if (config[field] !== undefined && typeof config[field] !== 'string') throw new UsageError(`the config file ${path}: "${field}" must be a string.`)
  }
  return config as ConfigFile
}

export function resolveSettings(options: GlobalOptions, env: Env): Settings {
  const file = readConfig(options.config ?? env.FACET_CONFIG ?? defaultConfigPath(env), options.config !== undefined || env.FACET_CONFIG !== undefined)
  const apiKey = env.FACET_API_KEY || file.apiKey
  if (!apiKey) {
    throw new UsageError(`no API key: set FACET_API_KEY, or write {"apiKey": "fs_live_…"} to ${defaultConfigPath(env)}. Create a key on your dashboard (Developers).`)
  }
  const url = options.url ?? (env.FACET_URL || file.url || DEFAULT_URL)
  try {
    new URL(url)
  } catch {
    throw new UsageError(`"${url}" is not a URL: give the studio's address, e.g. ${DEFAULT_URL}.`)
  }
  const team = options.team ?? (env.FACET_TEAM || file.team)
  return { url, apiKey, ...(team ? { team } : {}) }
}
