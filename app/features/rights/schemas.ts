// What the account deletion accepts (decision 171): the current password, on the page and the API.
// Client-safe, zod/mini (decision 148): the same schema validates in the browser and on the server.
import { z } from 'zod/mini'
import { PASSWORD_NEEDED } from './messages'

export const deleteAccountSchema = z.object({
  password: z.string({ error: PASSWORD_NEEDED }).check(z.minLength(1, PASSWORD_NEEDED), z.maxLength(200, 'Password must be at most 200 characters.')),
})
