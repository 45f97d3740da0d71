// GET /api/models/ → {results: [...]}: the models this server knows, which are installed, their licences.
import { listModels } from '~/features/tools/models/model-list.server'

export async function loader() {
  return Response.json({ results: await listModels() }, { headers: { 'Cache-Control': 'no-store' } })
}
