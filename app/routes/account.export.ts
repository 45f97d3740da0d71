// POST /account/export: the dashboard's "Download my data" form (a plain form, so the browser saves the
// zip with JavaScript on or off). Cookie posts from other sites are refused before this runs (decision
// 004). Past the rate limit: back to the dashboard, which says why.
import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { exportResponse } from '~/features/rights/export.server'
import { requireUser } from '~/features/account/guards.server'
import { exportLimitedNotice } from '~/features/rights/notice.server'
import { limitExport } from '~/features/rights/limits.server'
import { YOUR_DATA_ANCHOR } from '~/features/rights/messages'

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireUser(request)
  const limited = await limitExport(user.id)
  if (!limited.ok) return redirect(YOUR_DATA_ANCHOR, { headers: { 'Set-Cookie': await exportLimitedNotice() } })
  return exportResponse(user.id)
}

/** A GET (a link, a prefetch) downloads nothing: the form on the dashboard does. */
export function loader() {
  return redirect(YOUR_DATA_ANCHOR)
}
