// GET /api/account/export/ → a zip of the caller's data (decision 171): facet-studio-export.json and
// the result files still kept. A session or a personal key; a team key is refused (403). Rate limited
// per account.
import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { exportResponse } from '~/features/rights/export.server'
import { requirePersonalApiUser } from '~/features/account/guards.server'
import { limitExport } from '~/features/rights/limits.server'
import { EXPORT_LIMITED } from '~/features/rights/messages'
import { tooManyRequests } from '~/features/security/rate-limit.server'
import { methodNotAllowed } from '~/http/errors.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requirePersonalApiUser(request)
  const limited = await limitExport(user.id)
  if (!limited.ok) return tooManyRequests(limited, EXPORT_LIMITED)
  return exportResponse(user.id)
}

export function action(_: ActionFunctionArgs) {
  return methodNotAllowed('GET')
}
