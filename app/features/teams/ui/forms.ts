// The team screens' forms: their zod schemas (conform validates with them in the browser and in the
// route actions), and the notices a successful form redirects with. Client-safe (zod/mini: decision 148).
import { z } from 'zod/mini'
import { KEY_REVOKED } from '~/features/api-keys/messages'
import { createApiKeySchema } from '~/features/api-keys/schemas'
import { MAX_MONTHLY_CAP, TEAM_NAME_MAX, TEAM_ROLES, type TeamRole } from '../roles'
import { createTeamSchema, inviteSchema } from '../schemas'

export { TEAM_NAME_MAX, TEAM_ROLES }
export type TeamRoleOption = TeamRole

export const ROLE_LABELS: Record<TeamRoleOption, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' }

const role = z.enum(TEAM_ROLES, { error: 'Choose a role: owner, admin or member.' })

// The create and invite forms take what the API takes (one schema each, in ../schemas).
export const createTeamFormSchema = createTeamSchema
export const inviteFormSchema = inviteSchema

export const roleFormSchema = z.object({ member: z.string().check(z.minLength(1)), role })

/** An empty cap clears it: the member then spends without a monthly limit. */
export const capFormSchema = z.object({
  member: z.string().check(z.minLength(1)),
  cap: z.optional(
    z.coerce
      .number({ error: 'A cap is a whole number of credits.' })
      .check(
        z.int('A cap is a whole number of credits.'),
        z.gte(0, 'A cap cannot be negative.'),
        z.lte(MAX_MONTHLY_CAP, `A cap is at most ${MAX_MONTHLY_CAP.toLocaleString('en-US')} credits.`),
      ),
  ),
})

export const memberFormSchema = z.object({ member: z.string().check(z.minLength(1)) })
/** The header switch: a team id, or empty for the viewer's own balance. */
export const workingAsFormSchema = z.object({ team: z.optional(z.string().check(z.trim())) })

export const leaveFormSchema = z.object({})

/** The invite page's second button: accept and work as the team at once. */
export const WORK_AS_TEAM = 'work-as-team'
export const acceptFormSchema = z.object({ then: z.optional(z.literal(WORK_AS_TEAM)) })

/** A team key: the key form's own fields (the team is the page's). */
export const teamKeyFormSchema = z.pick(createApiKeySchema, { name: true, environment: true })
export const keyIdFormSchema = z.object({ key: z.string().check(z.minLength(1)) })
export const inviteIdFormSchema = z.object({ invite: z.string().check(z.minLength(1)) })

/** What a form that worked says, once, on the page it redirects to (by key: redirectWithNotice). */
export const TEAM_NOTICES = {
  created: 'Your team is ready. Invite people to share its credits.',
  invited: 'The invite is on its way. The link in the mail works once and expires in 7 days.',
  revoked: 'The invite was revoked: its link no longer works.',
  'role-changed': 'The role was changed.',
  'cap-set': 'The monthly cap was saved.',
  'cap-cleared': 'The monthly cap was cleared.',
  removed: 'The member was removed. They lost access to the team at once.',
  'key-revoked': KEY_REVOKED,
  left: 'You left the team.',
  'not-a-member': 'You are not a member of that team any more: you work on your own balance.',
  transferred: 'Your credits were moved to the team: its balance above includes them.',
  joined: 'Welcome to the team. To spend its credits, open your credits in the header and choose it under “Working as”.',
  'joined-working': 'Welcome to the team. You are working as the team: the tools spend its credits. Switch back from your credits in the header.',
} as const
export type TeamNotice = keyof typeof TEAM_NOTICES

export function noticeText(key: string | null | undefined): string | null {
  return key && Object.hasOwn(TEAM_NOTICES, key) ? TEAM_NOTICES[key as TeamNotice] : null
}
