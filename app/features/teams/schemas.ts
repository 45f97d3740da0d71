// What the team endpoints and forms take. Client-safe: the API and the screens share them.
import { z } from 'zod'
import { MAX_MONTHLY_CAP, TEAM_NAME_MAX, TEAM_ROLES } from './roles'

const ROLE = z.enum(TEAM_ROLES, { error: 'role must be owner, admin or member.' })

export const createTeamSchema = z.object({
  name: z
    .string({ error: 'Give the team a name.' })
    .trim()
    .min(1, 'Give the team a name.')
    .max(TEAM_NAME_MAX, `A team name has at most ${TEAM_NAME_MAX} characters.`),
})

export const inviteSchema = z.object({
  email: z.string({ error: 'Enter the email address to invite.' }).trim().toLowerCase().pipe(z.email({ error: 'Enter a valid email address.' })),
  role: ROLE.default('member'),
})

export const acceptInviteSchema = z.object({
  token: z.string({ error: 'token is required.' }).trim().min(1, 'token is required.').max(200, 'This invite link is not valid.'),
})

/** A cap: a whole number of credits, or null (JSON) / '' (a form) for none. */
const CAP = z.preprocess(
  (value) => (value === '' ? null : typeof value === 'string' ? Number(value) : value),
  z
    .number({ error: `cap must be a whole number of credits from 0 to ${MAX_MONTHLY_CAP}, or null for none.` })
    .int(`cap must be a whole number of credits from 0 to ${MAX_MONTHLY_CAP}, or null for none.`)
    .min(0, `cap must be a whole number of credits from 0 to ${MAX_MONTHLY_CAP}, or null for none.`)
    .max(MAX_MONTHLY_CAP, `cap must be a whole number of credits from 0 to ${MAX_MONTHLY_CAP}, or null for none.`)
    .nullable(),
)

export const changeMemberSchema = z
  .object({ role: ROLE.optional(), cap: CAP.optional() })
  .refine((v) => v.role !== undefined || v.cap !== undefined, { message: 'Send role, cap or both.' })
