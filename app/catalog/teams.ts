// Who manages a team, client-safe: the team rules (features/teams) and the team keys' check
// (features/api-keys, below the teams) read it. Checked against TeamRole in teams/roles.ts.

/** The roles that manage the team (invite, remove, change roles and caps, make team keys); members only use it. */
export const MANAGER_ROLES = ['owner', 'admin'] as const
