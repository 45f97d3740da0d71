// What the layout shows about the current caller on every page: the user, if signed in, and the
// real balance of the user, the team they work as, or the visitor, after today's refresh; and the
// user's teams for the header's switcher. Page views never create visitors
// (bots crawl pages); a browser without a visitor cookie is shown the guest allowance it would get.
import type { Viewer } from '~/features/account/viewer'
import { capHeadroom } from '~/features/account/headroom.server'
import { listTeamsForUser } from '~/features/teams/teams.server'
import { resolveCaller } from '~/features/account/caller.server'

export async function loadViewer(
  request: Request,
  options: { now?: Date } = {},
): Promise<{ viewer: Viewer; headers: Headers }> {
  const headers = new Headers()
  const resolved = await resolveCaller(request, { create: false, invalidAsGuest: true, now: options.now })
  switch (resolved.kind) {
    case 'caller':
    {
      if (resolved.setCookie) headers.append('Set-Cookie', resolved.setCookie)
      const { caller } = resolved
      const teams = resolved.user ? await listTeamsForUser(resolved.user.id) : []
      const working = caller.teamId ? teams.find((t) => t.id === caller.teamId) : undefined
      return {
        viewer: {
          user: resolved.user,
          credits: { source: caller.teamId ? 'team' : caller.source, balance: resolved.balance },
          teams,
          workingTeam: working ? { id: working.id, name: working.name, cap: await capHeadroom(caller, undefined, options.now) } : null,
        },
        headers,
      }
    }
    case 'guest-preview':
      return { viewer: { user: null, credits: { source: 'visitor', balance: resolved.balance }, teams: [], workingTeam: null }, headers }
    default:
      // Not reachable for pages (no visitor is created, invalid sessions count as guests); the
      // header then reads 'Credits'.
      return { viewer: { user: null, credits: null, teams: [], workingTeam: null }, headers }
  }
}
