// GET /api/credits/packages/ → {results: [{id, credits, price, label}]}, the same for everyone.
import { listPackages } from '~/features/credits/packages.server'

export async function loader() {
  const results = await listPackages()
  return Response.json({ results }, { headers: { 'Cache-Control': 'public, max-age=60' } })
}
