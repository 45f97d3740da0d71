// The tools the job platform runs, handed in at wiring (features/wiring.server.ts): the platform stands
// below the tools (it runs any runner that keeps the contract of runner.ts, and names no tool's module),
// as the job events' subscribers are handed in (decision 118). A process that runs or ends a job without
// the wiring fails on it at once, never silently.
import type { ToolSlug } from '~/catalog/tools'
import type { DbOrTx } from '~/db/db.server'
import { singleton } from '~/utils/singleton.server'
import type { ToolError } from './errors.server'
import type { Delivered, KeptForCorrection, ToolRunner } from './runner'

export interface ToolRegistry {
  /** The runner of each tool (tools/runners/index.server.ts). */
  runnerFor(tool: ToolSlug): ToolRunner<unknown>
  /** Anything a run threw, as the refusal or failure its answer says, in the tool's own words. */
  failureOf(error: unknown, tool: ToolSlug): ToolError
  /** The download's name with the extension of the type it was delivered in. */
  nameForType(filename: string, contentType: string): string
  /** A test key's result over the test cap, downscaled in its own format (tools/test-mode.server.ts). */
  capTestResult(delivered: Delivered): Promise<Delivered>
  /** What one run of the tool costs now (its price can depend on the models installed). */
  cost(tool: ToolSlug): number
  /** Stores what a run kept for a later correction, in the outcome's own transaction, expiring with the result (decision 157). */
  storeKept(input: { jobId: string; accountId: string; kept: KeptForCorrection; expiresAt: Date }, trx: DbOrTx): Promise<void>
}

// On globalThis: server.ts and the Vite-built bundle each hold a copy of this module (as the job events do).
const handed = () => singleton<{ registry: ToolRegistry | null }>('job-tool-registry', () => ({ registry: null }))

/** Called once by features/wiring.server.ts. */
export function handTools(registry: ToolRegistry): void {
  handed().registry = registry
}

export function tools(): ToolRegistry {
  const { registry } = handed()
  if (!registry) throw new Error('The tools are not handed to the job platform: import ~/features/wiring.server in this process before runs')
  return registry
}

export function runnerFor(tool: ToolSlug): ToolRunner<unknown> {
  return tools().runnerFor(tool)
}
