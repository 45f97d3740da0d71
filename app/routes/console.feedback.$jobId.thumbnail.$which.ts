// GET /console/feedback/<job>/thumbnail/<input|output|expected>: a report's small picture (operators only).
import type { LoaderFunctionArgs } from '@remix-run/node'
import { requireOperator } from '~/features/account/guards.server'
import { caseThumbnail } from '~/features/feedback/feedback.server'
import { isUuid } from '~/utils/uuid'

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireOperator(request)
  const jobId = params.jobId ?? ''
  const png = isUuid(jobId) ? await caseThumbnail(jobId, params.which ?? '') : null
  if (!png) throw new Response('Not found', { status: 404 })
  return new Response(new Uint8Array(png), {
    headers: { 'Content-Type': 'image/png', 'Content-Length': String(png.byteLength), 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff' },
  })
}
