// Who is looking at the page, as the layout needs it. Client-safe: types only.
import type { CapHeadroom } from '~/features/teams/headroom'
import type { TeamRole } from '~/features/teams/roles'

export interface ViewerUser {
  id: string
  email: string
  first_name: string | null
  last_name: string | null
}

export interface ViewerCredits {
  /** 'team': the signed-in user works as a team (workingTeam), and balance is the team's. */
  source: 'user' | 'visitor' | 'team'
  balance: number
}

export interface ViewerTeam {
  id: string
  name: string
  role: TeamRole
}

export interface Viewer {
  user: ViewerUser | null
  /** null when the balance is unknown: the header then reads 'Credits'. */
  credits: ViewerCredits | null
  /** The teams the user belongs to ([] when signed out), for the header's switcher. */
  teams: ViewerTeam[]
  /**
   * The team this browser session works as, or null (own balance); `cap`: what is left of the
   * user's monthly cap on it (null: no cap).
   */
  workingTeam: { id: string; name: string; cap?: CapHeadroom | null } | null
  /** The user is an operator (OPERATOR_EMAILS): the header links to the console. */
  operator?: boolean
}
