// GET /api/results/<id>: a stored result (the restorer's restored_url), for the account that produced it
// (its cookie, session token or API key), or for the holder of a signed link until the link expires
// (decision 174); anyone else, and everyone after 24 hours, gets 404 (result-access.server.ts).
import type { LoaderFunctionArgs } from '@remix-run/node'
import { authorisedResult } from '~/features/tools/result-access.server'
import { contentDisposition } from '~/http/headers'

export async function loader({ request, params }: LoaderFunctionArgs) {
  const result = await authorisedResult(request, params.id ?? '')
  if (result instanceof Response) return result
  const download = new URL(request.url).searchParams.get('download') === '1'
  return new Response(new Uint8Array(result.bytes), {
    headers: {
      'Content-Type': result.contentType,
      'Content-Length': String(result.bytes.byteLength),
      'Content-Disposition': contentDisposition(result.filename, download ? 'attachment' : 'inline'),
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
