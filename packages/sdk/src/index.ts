// @facet-studio/sdk: a typed client for a Facet Studio (see README.md, "SDK and command line").
export {
  createClient,
  dispositionFilename,
  FacetConnectionError,
  TOOL_PATHS,
  type Batch,
  type BatchAccepted,
  type BatchWaitOptions,
  type BlurFacesOptions,
  type CallOptions,
  type ClientOptions,
  type ConvertSvgOptions,
  type Credits,
  type EnhanceImageOptions,
  type FacetClient,
  type Job,
  type JobAccepted,
  type RemoveBackgroundOptions,
  type RestoreFacesOptions,
  type ToolOptions,
  type ToolResult,
  type ToolSlug,
  type WaitOptions,
} from './client'
export { FacetError, errorFromResponse, REQUEST_FAILED, type ErrorBody } from './errors'
export type { FileInput } from './files'
export { verifyWebhook, WebhookVerificationError, type WebhookEvent } from './webhooks'
export type { components, paths } from './generated/openapi'
