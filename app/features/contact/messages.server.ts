// Contact messages: stored so the operator can answer them. (The API waitlist retired when the API
// launched; its stored rows stay in api_waitlist.)
import { getDb, type DB } from '~/db/db.server'
import type { RateLimitRule } from '~/features/security/rate-limit.server'
import type { ContactInput } from './schemas'

export const CONTACT_RATE_LIMIT: RateLimitRule = { name: 'contact-message', points: 5, durationSeconds: 10 * 60 }

export async function saveContactMessage(input: ContactInput, db: DB = getDb()): Promise<{ id: string }> {
  return db
    .insertInto('contact_messages')
    .values({
      full_name: input.name,
      email: input.email.toLowerCase(),
      company: input.company ? input.company : null,
      message: input.message,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
}
