import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createSession, hashToken } from './session.server'
import { AUTH_RETENTION_DAYS, sweepStaleAuthRows } from './sweeper.server'

const DAY = 86_400_000

// Each row is placed relative to the real clock, so rows of other test files sharing the
// PostgreSQL schema are swept only if they are genuinely stale.
function daysAgo(days: number): Date {
  return new Date(Date.now() - days * DAY)
}

async function newUser(): Promise<string> {
  const row = await getDb()
    .insertInto('users')
    .values({ email: `sweeper-${randomUUID()}@example.test`, password_hash: 'x', first_name: null, last_name: null })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

async function session(userId: string, expiresAt: Date, revokedAt: Date | null = null): Promise<string> {
  const row = await getDb()
    .insertInto('sessions')
    .values({ user_id: userId, token_hash: hashToken(randomUUID()), expires_at: expiresAt, revoked_at: revokedAt })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

async function token(userId: string, expiresAt: Date, usedAt: Date | null = null): Promise<string> {
  const row = await getDb()
    .insertInto('user_tokens')
    .values({ user_id: userId, purpose: 'reset_password', token_hash: hashToken(randomUUID()), expires_at: expiresAt, used_at: usedAt })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

async function remaining(table: 'sessions' | 'user_tokens', ids: string[]): Promise<string[]> {
  const rows = await getDb().selectFrom(table).select('id').where('id', 'in', ids).execute()
  return rows.map((row) => row.id).sort()
}

describe('sweepStaleAuthRows', () => {
  it('deletes sessions expired or revoked more than a week ago and keeps the rest', async () => {
    const userId = await newUser()
    const stale = [
      await session(userId, daysAgo(AUTH_RETENTION_DAYS + 1)),
      await session(userId, daysAgo(-20), daysAgo(AUTH_RETENTION_DAYS + 1)),
      await session(userId, daysAgo(40), daysAgo(35)),
    ]
    const kept = [
      await session(userId, daysAgo(-30)),
      await session(userId, daysAgo(AUTH_RETENTION_DAYS - 1)),
      await session(userId, daysAgo(-20), daysAgo(1)),
    ]

    const counts = await sweepStaleAuthRows()

    expect(counts.sessions).toBeGreaterThanOrEqual(stale.length)
    expect(await remaining('sessions', [...stale, ...kept])).toEqual([...kept].sort())
  })

  it('deletes mailed tokens expired or used more than a week ago and keeps the rest', async () => {
    const userId = await newUser()
    const stale = [
      await token(userId, daysAgo(AUTH_RETENTION_DAYS + 2)),
      await token(userId, daysAgo(-1), daysAgo(AUTH_RETENTION_DAYS + 1)),
    ]
    const kept = [
      await token(userId, daysAgo(-1)),
      await token(userId, daysAgo(2)),
      await token(userId, daysAgo(-1), daysAgo(3)),
    ]

    const counts = await sweepStaleAuthRows()

    expect(counts.tokens).toBeGreaterThanOrEqual(stale.length)
    expect(await remaining('user_tokens', [...stale, ...kept])).toEqual([...kept].sort())
  })

  it('takes the cutoff from the clock it is given', async () => {
    const userId = await newUser()
    const sessionId = await session(userId, daysAgo(20))
    const tokenId = await token(userId, daysAgo(20))

    // Seen from fifteen days ago, these rows had expired only five days before: kept.
    await sweepStaleAuthRows(daysAgo(15))
    expect(await remaining('sessions', [sessionId])).toEqual([sessionId])
    expect(await remaining('user_tokens', [tokenId])).toEqual([tokenId])

    await sweepStaleAuthRows(new Date())
    expect(await remaining('sessions', [sessionId])).toEqual([])
    expect(await remaining('user_tokens', [tokenId])).toEqual([])
  })
})

describe('the process-wide sweeper', () => {
  it('is started by the first session created', async () => {
    const store = globalThis as unknown as { __facetSingletons?: Map<string, unknown> }
    expect(store.__facetSingletons?.has('auth-sweeper') ?? false).toBe(false)
    await createSession(await newUser())
    expect(store.__facetSingletons?.get('auth-sweeper')).toBeDefined()
  })
})
