// GET /api/results/<id>/preview: a small picture of a stored result for the workspace's before/after
// (at most PREVIEW_PIXELS on a side), so a phone on a slow link is not made to fetch the full resolution
// to see its result (issue 35 item 2, decision 179). Readable by exactly whoever may read the result
// (result-access.server.ts); the full resolution stays at /api/results/<id>.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { authorisedResult } from '~/features/tools/result-access.server'
import { resultPreview } from '~/features/tools/result-preview.server'

export async function loader({ request, params }: LoaderFunctionArgs) {
  const result = await authorisedResult(request, params.id ?? '')
  if (result instanceof Response) return result
  const preview = await resultPreview(params.id ?? '', result)
  const headers = {
    'Content-Type': preview.contentType,
    // Kept by this browser only and asked again each time (a correction replaces the result under the same address).
    'Cache-Control': 'private, no-cache',
    ETag: preview.etag,
    'X-Content-Type-Options': 'nosniff',
  }
  if (request.headers.get('If-None-Match') === preview.etag) return new Response(null, { status: 304, headers })
  return new Response(new Uint8Array(preview.bytes), { headers: { ...headers, 'Content-Length': String(preview.bytes.byteLength) } })
}
