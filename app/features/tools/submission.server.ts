// What the request side of a tool run shares (submit.server.ts runs it, the worker reports
// failures with the same words): the messages, the run rate limit, the download header, the model
// check and the mapping of anything thrown to the answer's status and message.
import { logger } from '~/utils/logger.server'
import type { ToolSlug } from '../../catalog/tools'
import { ToolError } from '../jobs/errors.server'
import { modelEntry } from './models/manifest'
import { isModelInstalled, ModelMissingError, requiredModelsFor } from './models/registry.server'
import { SVG_SIGN_IN_MESSAGE, TOOL_MESSAGES } from './ui/tool-messages'

// One wording for the page and the API (the tests import it from here).
export { SVG_SIGN_IN_MESSAGE }
export const INVALID_TOKEN_MESSAGE = 'Your session has ended or the token is not valid. Sign in again.'

/** Generous for a person, tight for a script: the queue bounds the CPU, this bounds one client. */
export const TOOL_RUN_RATE = { name: 'tool-runs', points: 120, durationSeconds: 60 }

export function missingModel(tool: ToolSlug): ModelMissingError | null {
  for (const id of requiredModelsFor(tool)) {
    if (!isModelInstalled(id)) return new ModelMissingError(id, modelEntry(id).file)
  }
  return null
}

export function asToolError(error: unknown, tool: ToolSlug): ToolError {
  if (error instanceof ToolError) return error
  if (error instanceof ModelMissingError) return new ToolError(503, error.message, { outcome: 'failed' })
  logger.error({ err: error, tool }, 'tool run failed')
  return new ToolError(500, TOOL_MESSAGES[tool].defaultError, { outcome: 'failed', cause: error })
}
