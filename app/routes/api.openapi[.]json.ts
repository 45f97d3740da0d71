// GET /api/openapi.json: the OpenAPI 3.1 document of every /api endpoint.
import { openApiDocument } from '~/features/api-docs/openapi'

export function loader() {
  return Response.json(openApiDocument(), { headers: { 'Cache-Control': 'public, max-age=300' } })
}
