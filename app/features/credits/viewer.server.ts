// What the layout shows about the current caller on every page.
import { getAuthentication } from '~/features/auth/session.server'
import type { Viewer } from '~/features/viewer'

export async function loadViewer(request: Request): Promise<{ viewer: Viewer; headers: Headers }> {
  const auth = await getAuthentication(request)
  return { viewer: { user: auth.kind === 'user' ? auth.user : null, credits: null }, headers: new Headers() }
}
