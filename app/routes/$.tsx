// Every path no other route matches: the 404 page, with status 404 and noindex.
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { logger } from '~/utils/logger.server'
import { NotFound } from '~/ui/not-found'

export const meta: MetaFunction = () => [
  { title: 'Page not found | Facet Studio' },
  { name: 'robots', content: 'noindex' },
]

function notFound(request: Request) {
  const { pathname } = new URL(request.url)
  logger.warn({ path: pathname.slice(0, 2048) }, 'unknown path (404)')
  return data(null, { status: 404 })
}

export const loader = ({ request }: LoaderFunctionArgs) => notFound(request)
// Forms posted to an unknown path get the same 404, not a 405.
export const action = ({ request }: ActionFunctionArgs) => notFound(request)

export default function UnknownPath() {
  return <NotFound />
}
