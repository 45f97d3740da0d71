// GET /api/results/<id>: a stored result (the restorer's restored_url), only for the account that
// produced it; anyone else, and everyone after 24 hours, gets 404.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { resolveCaller } from '~/features/account/caller.server'
import { readResult } from '~/features/tools/results.server'
import { contentDisposition } from '~/features/tools/submission.server'

const RESULT_NOT_FOUND = 'This result does not exist or has expired.'
const notFound = () => Response.json({ error: RESULT_NOT_FOUND, detail: RESULT_NOT_FOUND }, { status: 404, headers: { 'Cache-Control': 'no-store' } })

export async function loader({ request, params }: LoaderFunctionArgs) {
  const resolution = await resolveCaller(request, { create: false })
  const accountId = resolution.kind === 'caller' ? resolution.caller.accountId : null
  const result = await readResult(params.id ?? '', accountId)
  if (!result) return notFound()
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
