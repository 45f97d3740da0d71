// GET /api/jobs/<id>/corrections/preview/<which>: the editor's pictures (photo, matte, mask,
// result, part-<id>, face-<index>), for the job's owner only.
import type { LoaderFunctionArgs } from '@remix-run/node'
import { getCorrectionPreview } from '~/features/corrections/api.server'

export function loader({ request, params }: LoaderFunctionArgs) {
  return getCorrectionPreview(request, params.id ?? '', params.which ?? '')
}
