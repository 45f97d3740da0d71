// GET /api/results/<id>/thumbnail: a small WebP of a stored result (history, the batch screen), for
// the account that produced it only, while the result lasts; anyone else gets the result's own 404.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { resolveCaller } from '~/features/account/caller.server'
import { readThumbnail, THUMBNAIL_TYPE } from '~/features/history/thumbnails.server'

export async function loader({ request, params }: LoaderFunctionArgs) {
  const resolution = await resolveCaller(request, { create: false, invalidAsGuest: true })
  const accountId = resolution.kind === 'caller' ? resolution.caller.accountId : null
  const thumbnail = await readThumbnail(params.id ?? '', accountId)
  if (!thumbnail) {
    return Response.json({ error: 'This result does not exist or has expired.' }, { status: 404, headers: { 'Cache-Control': 'no-store' } })
  }
  return new Response(new Uint8Array(thumbnail), {
    headers: {
      'Content-Type': THUMBNAIL_TYPE,
      'Content-Length': String(thumbnail.byteLength),
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
