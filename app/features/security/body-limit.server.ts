// How much each path's request body may weigh, and the limit on every body that is not an upload.
// JSON and form bodies (sign-in, keys, teams, webhooks, contact, analytics) are read whole by
// request.text() and request.formData(), which have no limit of their own: without this, one
// unauthenticated POST of a gigabyte to /api/auth/login/ is held in memory. Node's parser never
// reads past Content-Length, so checking the declared length bounds the real bytes; a streamed body
// (no length) is refused.
// Uploads (multipart to the tool endpoints and pages, /api/jobs/, /api/batches/) are read by busboy
// under their own limits (upload.server.ts), and the remove.bg-compatible endpoint takes a photo in
// any of its three body types (a file, its base64 in JSON or a form) under its own limit: they
// pass through.
// Those limits are the features' own (tools, batches, remove.bg), above security: they are handed in
// by features/wiring.server.ts (decision 170), imported by every process that serves requests.
import type { IncomingMessage } from 'node:http'
import type { RequestHandler } from 'express'
import { MCP_MAX_BODY_BYTES, MCP_PATH } from '~/catalog/mcp'
import { singleton } from '~/utils/singleton.server'

/** Far above any form or JSON body the studio takes (the largest, a contact message, is a few KB). */
export const SMALL_BODY_LIMIT_BYTES = 1024 * 1024
export const BODY_TOO_LARGE_MESSAGE = 'The request body is too large: at most 1 MB, except for file uploads.'
export const LENGTH_REQUIRED_MESSAGE = 'Send this request body with a Content-Length (only file uploads may be streamed).'

export const REMOVEBG_PATH = '/api/v1.0/removebg'

export interface UploadLimits {
  /** Multipart uploads, by path (with its trailing slash), and the most each body may weigh. */
  multipart: Map<string, () => number>
  /** The remove.bg-compatible endpoint's limit, whatever its body type. */
  removeBg: number
}

// On globalThis: server.ts and the Vite-built bundle each hold a copy of this module (as the job events do).
const handed = () => singleton<{ limits: UploadLimits | null }>('upload-limits', () => ({ limits: null }))

/** Called once by features/wiring.server.ts. */
export function handUploadLimits(limits: UploadLimits): void {
  handed().limits = limits
}

function uploadLimits(): UploadLimits {
  const { limits } = handed()
  // A process that serves requests without the wiring would take every upload as a small body: refuse loudly.
  if (!limits) throw new Error('Upload limits are not handed in: import ~/features/wiring.server in this process before it serves requests')
  return limits
}

function withSlash(path: string): string {
  return path.endsWith('/') ? path : `${path}/`
}

export function isRemoveBgPath(path: string): boolean {
  return withSlash(path) === `${REMOVEBG_PATH}/`
}

/**
 * The most a request's body may weigh on its path: an upload's own limit (a multipart body to an
 * upload path, any body to the remove.bg-compatible endpoint), else SMALL_BODY_LIMIT_BYTES.
 * selfBounded: the route's own reader counts the bytes against that limit, so it may take a body
 * streamed (without a Content-Length).
 */
export function bodyLimitFor(path: string, contentType: string): { bytes: number; selfBounded: boolean } {
  if (isRemoveBgPath(path)) return { bytes: uploadLimits().removeBg, selfBounded: true }
  // /mcp's JSON-RPC carries files as base64; its transport stops past MCP_MAX_BODY_BYTES (413) itself.
  if (withSlash(path) === `${MCP_PATH}/`) return { bytes: MCP_MAX_BODY_BYTES, selfBounded: true }
  const upload = /^multipart\/form-data/i.test(contentType) ? uploadLimits().multipart.get(withSlash(path)) : undefined
  if (upload) return { bytes: upload(), selfBounded: true }
  return { bytes: SMALL_BODY_LIMIT_BYTES, selfBounded: false }
}

/** For `Expect: 100-continue` (early-answer.server.ts): the limit of a request not yet routed. */
export function requestBodyLimit(req: IncomingMessage): number {
  // The path as Express routes it; a request line nothing parses gets the small limit, never a throw.
  const path = (req.url ?? '/').split('?', 1)[0]!
  return bodyLimitFor(path, req.headers['content-type'] ?? '').bytes
}

export const limitSmallBodies: RequestHandler = (req, res, next) => {
  if (bodyLimitFor(req.path, req.headers['content-type'] ?? '').selfBounded) return next()
  const declared = req.headers['content-length']
  if (declared === undefined) {
    if (req.headers['transfer-encoding']) return void res.status(411).json({ error: LENGTH_REQUIRED_MESSAGE, detail: LENGTH_REQUIRED_MESSAGE })
    return next()
  }
  if (Number(declared) > SMALL_BODY_LIMIT_BYTES) {
    // Clients stop sending; what still comes is discarded before the connection closes (early-answer.server.ts).
    res.setHeader('Connection', 'close')
    return void res.status(413).json({ error: BODY_TOO_LARGE_MESSAGE, detail: BODY_TOO_LARGE_MESSAGE })
  }
  next()
}
