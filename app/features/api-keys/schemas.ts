// What a new key needs. Client-safe: the API endpoint and the dashboard form share it.
import { z } from 'zod'

export const API_KEY_ENVIRONMENTS = ['live', 'test'] as const
export const API_KEY_NAME_MAX = 60

export const createApiKeySchema = z.object({
  name: z
    .string({ error: 'Give the key a name.' })
    .trim()
    .min(1, 'Give the key a name.')
    .max(API_KEY_NAME_MAX, `A key name has at most ${API_KEY_NAME_MAX} characters.`),
  environment: z.enum(API_KEY_ENVIRONMENTS, { error: 'environment must be "live" or "test".' }),
  /** A team key: made by the team's owners and admins, it always charges the team. */
  team_id: z.uuid({ error: 'team_id must be a team id.' }).optional(),
})
