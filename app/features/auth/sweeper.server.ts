// Sessions and mailed tokens stop working when they expire or are revoked/used, but their rows
// would stay forever. They are kept for a week after that (so a "session expired" or "link already
// used" can still be told apart from a forged token while it matters), then deleted.
import { getDb, type DB } from '~/db/db.server'
import { logger } from '~/utils/logger.server'
import { singleton } from '~/utils/singleton.server'

export const AUTH_RETENTION_DAYS = 7
const SWEEP_INTERVAL_MS = 60 * 60 * 1000

export interface AuthSweepCounts {
  sessions: number
  tokens: number
}

/** Deletes sessions expired or revoked, and tokens expired or used, more than a week before `now`. */
export async function sweepStaleAuthRows(now: Date = new Date(), db: DB = getDb()): Promise<AuthSweepCounts> {
  const cutoff = new Date(now.getTime() - AUTH_RETENTION_DAYS * 86_400_000)
  const sessions = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<', cutoff), eb('revoked_at', '<', cutoff)]))
    .executeTakeFirst()
  const tokens = await db
    .deleteFrom('user_tokens')
    .where((eb) => eb.or([eb('expires_at', '<', cutoff), eb('used_at', '<', cutoff)]))
    .executeTakeFirst()
  return { sessions: Number(sessions.numDeletedRows), tokens: Number(tokens.numDeletedRows) }
}

/** Once per process: a sweep shortly after first use and every hour after. The timer never keeps
 * the process alive. */
export function startAuthSweeper(): void {
  singleton('auth-sweeper', () => {
    const sweep = () =>
      sweepStaleAuthRows()
        .then((counts) => (counts.sessions > 0 || counts.tokens > 0) && logger.info(counts, 'stale sessions and tokens deleted'))
        .catch((error: Error) => logger.warn({ err: error.message }, 'auth sweep failed'))
    setTimeout(sweep, 1_000).unref()
    const timer = setInterval(sweep, SWEEP_INTERVAL_MS)
    timer.unref()
    return timer
  })
}
