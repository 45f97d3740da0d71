// Contact messages and API waitlist signups: both are stored so the operator can answer them.
import { sql } from 'kysely'
import { getDb, type DB } from '~/db/db.server'
import type { RateLimitRule } from '~/features/security/rate-limit.server'
import type { ContactInput, WaitlistInput } from './schemas'

export const CONTACT_RATE_LIMIT: RateLimitRule = { name: 'contact-message', points: 5, durationSeconds: 10 * 60 }
export const WAITLIST_RATE_LIMIT: RateLimitRule = { name: 'api-waitlist', points: 10, durationSeconds: 60 * 60 }

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

/**
 * Adds an email to the API waitlist. A repeat signup is not an error: the address is already there,
 * which is what the person wanted. Emails are compared case-insensitively.
 */
export async function joinWaitlist(
  input: WaitlistInput,
  db: DB = getDb(),
): Promise<{ alreadyJoined: boolean }> {
  const inserted = await db
    .insertInto('api_waitlist')
    .values({ email: input.email.toLowerCase() })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning(sql<number>`1`.as('inserted'))
    .executeTakeFirst()
  return { alreadyJoined: !inserted }
}
