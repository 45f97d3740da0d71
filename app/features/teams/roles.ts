// Team roles and the team rules' fixed numbers. Client-safe: the screens and the API share them.
import { MANAGER_ROLES } from '~/catalog/teams'
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

/** MANAGER_ROLES (catalog/teams.ts), typed here: a name that is not a role fails the typecheck. */
const managers: readonly TeamRole[] = MANAGER_ROLES

export function managesTeam(role: TeamRole): boolean {
  return managers.includes(role)
}
