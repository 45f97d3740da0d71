// What a new key needs. Client-safe: the API endpoint and the dashboard form share it (zod/mini:
// decision 148).
import { z } from 'zod/mini'

import { API_KEY_ENVIRONMENTS, API_KEY_NAME_MAX } from './limits'

export const createApiKeySchema = z.object({
  name: z
    .string({ error: 'Give the key a name.' })
    .check(
      z.trim(),
      z.minLength(1, 'Give the key a name.'),
      z.maxLength(API_KEY_NAME_MAX, `A key name has at most ${API_KEY_NAME_MAX} characters.`),
    ),
  environment: z.enum(API_KEY_ENVIRONMENTS, { error: 'environment must be "live" or "test".' }),
  /** A team key: made by the team's owners and admins, it always charges the team. */
  team_id: z.optional(z.uuid({ error: 'team_id must be a team id.' })),
})
