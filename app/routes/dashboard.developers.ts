// POST /dashboard/developers: the Developers section's forms (API keys, webhooks). Always answers
// with a redirect back to /dashboard#developers.
import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { DEVELOPERS_ANCHOR } from '~/features/auth/redirect'
import { developersAction } from '~/features/developers/developers.server'

export function loader() {
  return redirect(DEVELOPERS_ANCHOR)
}

export async function action({ request }: ActionFunctionArgs) {
  return developersAction(request)
}
