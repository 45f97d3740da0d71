// Unknown /api/* paths answer as an API does: JSON with a 404, never the HTML not-found page.
import type { LoaderFunctionArgs } from '@remix-run/node'

function notFound({ request }: LoaderFunctionArgs): Response {
  const { pathname } = new URL(request.url)
  const error = `No API endpoint at ${pathname}.`
  return Response.json({ error, detail: error }, { status: 404, headers: { 'Cache-Control': 'no-store' } })
}

export const loader = notFound
export const action = notFound
