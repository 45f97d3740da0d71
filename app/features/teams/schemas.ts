// What the team endpoints and forms take. Client-safe: the API and the screens share them (zod/mini:
// decision 148).
import { z } from 'zod/mini'
import { MAX_MONTHLY_CAP, TEAM_NAME_MAX, TEAM_ROLES } from './roles'

const ROLE = z.enum(TEAM_ROLES, { error: 'role must be owner, admin or member.' })

export const createTeamSchema = z.object({
  name: z
    .string({ error: 'Give the team a name.' })
    .check(
      z.trim(),
      z.minLength(1, 'Give the team a name.'),
      z.maxLength(TEAM_NAME_MAX, `A team name has at most ${TEAM_NAME_MAX} characters.`),
    ),
})

export const inviteSchema = z.object({
  email: z.pipe(
    z.string({ error: 'Enter the email address to invite.' }).check(z.trim(), z.toLowerCase()),
    z.email({ error: 'Enter a valid email address.' }),
  ),
  role: z._default(ROLE, 'member'),
})

export const acceptInviteSchema = z.object({
  token: z
    .string({ error: 'token is required.' })
    .check(z.trim(), z.minLength(1, 'token is required.'), z.maxLength(200, 'This invite link is not valid.')),
})

/** A cap: a whole number of credits, or null (JSON) / '' (a form) for none. */
const CAP_RULE = `cap must be a whole number of credits from 0 to ${MAX_MONTHLY_CAP}, or null for none.`
const CAP = z.pipe(
  z.transform((value: unknown) => (value === '' ? null : typeof value === 'string' ? Number(value) : value)),
  z.nullable(z.number({ error: CAP_RULE }).check(z.int(CAP_RULE), z.gte(0, CAP_RULE), z.lte(MAX_MONTHLY_CAP, CAP_RULE))),
)

export const changeMemberSchema = z
  .object({ role: z.optional(ROLE), cap: z.optional(CAP) })
  .check(z.refine((v) => v.role !== undefined || v.cap !== undefined, { message: 'Send role, cap or both.' }))
