// Team roles and the team rules' fixed numbers. Client-safe: the screens and the API share them.
import type { TeamRole } from '~/db/schema'

export type { TeamRole }

export const TEAM_ROLES = ['owner', 'admin', 'member'] as const satisfies readonly TeamRole[]
export const TEAM_NAME_MAX = 60
/** An invite link works for this long, once. */
export const INVITE_TTL_DAYS = 7
/** Teams one user may own at once: enough for any agency, bounded against scripted sign-ups. */
export const MAX_OWNED_TEAMS = 20
/** The largest monthly cap an owner can set (a bound for the column, not a business rule). */
export const MAX_MONTHLY_CAP = 1_000_000

/** The roles that manage the team (invite, remove, change roles and caps, make team keys); members only use it. */
export const MANAGER_ROLES = ['owner', 'admin'] as const satisfies readonly TeamRole[]

export function managesTeam(role: TeamRole): boolean {
  return (MANAGER_ROLES as readonly TeamRole[]).includes(role)
}
