// Limits on the real bytes of every request body that is not a file upload. JSON and form bodies
// (sign-in, keys, teams, webhooks, contact, analytics) are read whole by request.text() and
// request.formData(), which have no limit of their own: without this, one unauthenticated POST of a
// gigabyte to /api/auth/login/ is held in memory. Node's parser never reads past Content-Length, so
// checking the declared length bounds the real bytes; a streamed body (no length) is refused.
// Uploads (multipart to the tool endpoints, /api/jobs/, /api/batches/ and the tool pages) are read
// by busboy under each tool's own limits (upload.server.ts), so they pass through.
import type { RequestHandler } from 'express'
import { TOOLS } from '~/catalog/tools'

/** Far above any form or JSON body the studio takes (the largest, a contact message, is a few KB). */
export const SMALL_BODY_LIMIT_BYTES = 1024 * 1024
export const BODY_TOO_LARGE_MESSAGE = 'The request body is too large: at most 1 MB, except for file uploads.'
export const LENGTH_REQUIRED_MESSAGE = 'Send this request body with a Content-Length (only file uploads may be streamed).'

const UPLOAD_PATHS = new Set([...Object.values(TOOLS).map((t) => t.apiPath), '/api/jobs/', '/api/batches/'])

function isUpload(path: string, contentType: string): boolean {
  if (!/^multipart\/form-data/i.test(contentType)) return false
  const normalised = path.endsWith('/') ? path : `${path}/`
  return UPLOAD_PATHS.has(normalised) || path.startsWith('/tools/')
}

/** Paths that read their bodies under a limit of their own: /mcp's JSON-RPC carries files as base64, and its transport stops past MCP_MAX_BODY_BYTES (413). */
const OWN_LIMIT_PATHS = new Set(['/mcp', '/mcp/'])

export const limitSmallBodies: RequestHandler = (req, res, next) => {
  if (isUpload(req.path, req.headers['content-type'] ?? '') || OWN_LIMIT_PATHS.has(req.path)) return next()
  const declared = req.headers['content-length']
  if (declared === undefined) {
    if (req.headers['transfer-encoding']) return void res.status(411).json({ error: LENGTH_REQUIRED_MESSAGE, detail: LENGTH_REQUIRED_MESSAGE })
    return next()
  }
  if (Number(declared) > SMALL_BODY_LIMIT_BYTES) {
    // The unread body is not drained: the connection closes after this answer.
    res.setHeader('Connection', 'close')
    return void res.status(413).json({ error: BODY_TOO_LARGE_MESSAGE, detail: BODY_TOO_LARGE_MESSAGE })
  }
  next()
}
