// API keys of a user: created (the key returned once, only its hash kept), listed with their use
// over the last 30 days, revoked, and resolved from an `Authorization: Bearer` header.
import { sql, type Transaction } from 'kysely'
import type { Database } from '~/db/schema'
import { isUuid } from '~/utils/uuid'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import { recordAudit } from '~/features/audit/audit.server'
import type { ApiKeyEnvironment } from '~/db/schema'
import type { SessionUser } from '~/db/schema'
import { MANAGER_ROLES } from '~/catalog/teams'
import { generateApiKey, hashApiKey, parseApiKey } from './key-format.server'

/** Active keys a user may hold at once: enough for every script and environment, bounded for the table. */
export const MAX_ACTIVE_KEYS = 25
/** The last-used time is written at most this often per key, so a busy key does not write on every call. */
export const LAST_USED_RESOLUTION_MS = 60_000
export const USAGE_WINDOW_DAYS = 30

export interface ApiKeyRef {
  id: string
  environment: ApiKeyEnvironment
  /** A team key: it always charges this team. */
  teamId: string | null
}

export interface ApiKeySummary {
  id: string
  name: string
  environment: ApiKeyEnvironment
  prefix: string
  created_at: Date
  last_used_at: Date | null
  /** Tool runs made with the key over the last 30 days. */
  runs_30d: number
  /** Credits the key spent over the last 30 days, net of refunds. */
  credits_30d: number
}

export type CreateKeyOutcome =
  | { ok: true; key: { id: string; name: string; environment: ApiKeyEnvironment; prefix: string; key: string; created_at: Date } }
  | { ok: false; reason: 'limit' }

export async function createApiKey(
  userId: string,
  input: { name: string; environment: ApiKeyEnvironment; teamId?: string | null },
  db: DbOrTx = getDb(),
): Promise<CreateKeyOutcome> {
  const active = await db
    .selectFrom('api_keys')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow()
  if (active.n >= MAX_ACTIVE_KEYS) return { ok: false, reason: 'limit' }
  const made = generateApiKey(input.environment)
  // The key and its audit entry commit together.
  const row = await executeTx(db, async (trx) => {
    const inserted = await trx
      .insertInto('api_keys')
      .values({
        user_id: userId,
        name: input.name,
        environment: input.environment,
        prefix: made.prefix,
        key_hash: made.hash,
        ...(input.teamId ? { team_id: input.teamId } : {}),
      })
      .returning(['id', 'name', 'environment', 'prefix', 'created_at'])
      .executeTakeFirstOrThrow()
    const details = { name: inserted.name, environment: inserted.environment, prefix: inserted.prefix, teamId: input.teamId ?? null }
    await recordAudit({ actor: { userId }, action: 'api_key.create', targetType: 'api_key', targetId: inserted.id, details }, trx)
    return inserted
  })
  return { ok: true, key: { ...row, key: made.key } }
}

/** The user's own (not team) active keys, newest first, with their runs and credits over the last 30 days. */
export async function listApiKeys(userId: string, db: DbOrTx = getDb()): Promise<ApiKeySummary[]> {
  return listKeysWhere({ userId }, db)
}

/** A team's active keys (whoever of its owners and admins created them). */
export async function listTeamApiKeys(teamId: string, db: DbOrTx = getDb()): Promise<ApiKeySummary[]> {
  return listKeysWhere({ teamId }, db)
}

async function listKeysWhere(owner: { userId: string } | { teamId: string }, db: DbOrTx): Promise<ApiKeySummary[]> {
  const since = sql<Date>`now() - make_interval(days => ${USAGE_WINDOW_DAYS})`
  return db
    .selectFrom('api_keys as k')
    .select((eb) => [
      'k.id',
      'k.name',
      'k.environment',
      'k.prefix',
      'k.created_at',
      'k.last_used_at',
      eb
        .selectFrom('tool_runs')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('tool_runs.api_key_id', '=', 'k.id')
        .where('tool_runs.created_at', '>', since)
        .as('runs_30d'),
      eb
        .selectFrom('credit_transactions')
        .select(sql<number>`coalesce(-sum(delta), 0)::int`.as('n'))
        .whereRef('credit_transactions.api_key_id', '=', 'k.id')
        .where('credit_transactions.created_at', '>', since)
        .as('credits_30d'),
    ])
    .where((eb) =>
      'teamId' in owner ? eb('k.team_id', '=', owner.teamId) : eb.and([eb('k.user_id', '=', owner.userId), eb('k.team_id', 'is', null)]),
    )
    .where('k.revoked_at', 'is', null)
    .orderBy('k.created_at', 'desc')
    .execute()
    .then((rows) => rows.map((r) => ({ ...r, runs_30d: r.runs_30d ?? 0, credits_30d: r.credits_30d ?? 0 })))
}

/**
 * Revokes one of the user's own keys, or a key of a team they own or administer. False when it is
 * none of those, does not exist or was revoked already.
 */
export async function revokeApiKey(userId: string, keyId: string, db: DbOrTx = getDb()): Promise<boolean> {
  if (!isUuid(keyId)) return false
  return executeTx(db, async (trx) => {
    const row = await trx
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('id', '=', keyId)
      .where((eb) =>
        eb.or([
          eb.and([eb('user_id', '=', userId), eb('team_id', 'is', null)]),
          eb(
            'team_id',
            'in',
            eb.selectFrom('team_members').select('team_id').where('user_id', '=', userId).where('role', 'in', ['owner', 'admin']),
          ),
        ]),
      )
      .where('revoked_at', 'is', null)
      .returning(['id', 'name', 'environment', 'team_id'])
      .executeTakeFirst()
    if (!row) return false
    const details = { name: row.name, environment: row.environment, teamId: row.team_id }
    await recordAudit({ actor: { userId }, action: 'api_key.revoke', targetType: 'api_key', targetId: row.id, details }, trx)
    return true
  })
}

/**
 * Revokes every active key the user made, personal and team keys alike, with an audit entry each
 * (a password reset: whoever held the old password may have made keys with it, decision 162; an
 * account deletion, decision 171).
 */
export async function revokeKeysMadeBy(
  userId: string,
  reason: 'password_reset' | 'account_deleted',
  trx: Transaction<Database>,
): Promise<Array<{ name: string; prefix: string; teamId: string | null }>> {
  const rows = await trx
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returning(['id', 'name', 'environment', 'prefix', 'team_id'])
    .execute()
  for (const row of rows) {
    const details = { name: row.name, environment: row.environment, teamId: row.team_id, reason }
    await recordAudit({ actor: { userId }, action: 'api_key.revoke', targetType: 'api_key', targetId: row.id, details }, trx)
  }
  return rows.map((r) => ({ name: r.name, prefix: r.prefix, teamId: r.team_id }))
}

export type KeyAuthentication =
  | { kind: 'malformed' }
  | { kind: 'invalid' }
  | { kind: 'key'; user: SessionUser; apiKey: ApiKeyRef }

/**
 * Who a presented key belongs to. A key of the wrong shape or checksum is refused before the
 * database is asked; a known, unrevoked key notes its last use (at most once a minute).
 */
export async function authenticateApiKey(key: string, db: DbOrTx = getDb(), now = new Date()): Promise<KeyAuthentication> {
  if (!parseApiKey(key)) return { kind: 'malformed' }
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      'api_keys.id as key_id',
      'api_keys.environment',
      'api_keys.last_used_at',
      'api_keys.team_id',
      'users.id',
      'users.email',
      'users.first_name',
      'users.last_name',
    ])
    .where('api_keys.key_hash', '=', hashApiKey(key))
    .where('api_keys.revoked_at', 'is', null)
    // A team key works only while its maker still manages the team (decision 162): a demotion or a
    // removal takes effect through the key at once, even one made before the rule revoked such keys.
    .where((eb) =>
      eb.or([
        eb('api_keys.team_id', 'is', null),
        eb.exists(
          eb
            .selectFrom('team_members as m')
            .select('m.user_id')
            .whereRef('m.team_id', '=', 'api_keys.team_id')
            .whereRef('m.user_id', '=', 'api_keys.user_id')
            .where('m.role', 'in', MANAGER_ROLES),
        ),
      ]),
    )
    .executeTakeFirst()
  if (!row) return { kind: 'invalid' }
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
    await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.key_id).execute()
  }
  const { key_id, environment, team_id, last_used_at: _lastUsed, ...user } = row
  return { kind: 'key', user, apiKey: { id: key_id, environment, teamId: team_id } }
}

/** A key as the API shows it (never its secret). */
export function publicKey(key: ApiKeySummary) {
  return {
    id: key.id,
    name: key.name,
    environment: key.environment,
    prefix: key.prefix,
    created_at: key.created_at.toISOString(),
    last_used_at: key.last_used_at ? key.last_used_at.toISOString() : null,
    runs_30d: key.runs_30d,
    credits_30d: key.credits_30d,
  }
}
