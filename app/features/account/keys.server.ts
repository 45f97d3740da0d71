// The key endpoints' and the Developers section's one entry point: what a signed-in user may do with
// keys (account/guards.server.ts says who is signed in), and the outcomes in words. A session (cookie or Token) manages keys; a key itself may list them but never
// create or revoke one, so a leaked key cannot mint its successor before it is revoked.
import type { Authentication } from '~/features/account/authentication.server'
import type { SessionUser } from '~/features/auth/session.server'
import { createApiKey, listApiKeys, publicKey, revokeApiKey } from '~/features/api-keys/keys.server'
import { KEY_LIMIT_REACHED, KEY_NOT_FOUND, KEYS_NEED_SESSION } from '~/features/api-keys/messages'
import type { createApiKeySchema } from '~/features/api-keys/schemas'
import type { z } from 'zod'
import { requireTeamManager, TeamError } from '~/features/teams/teams.server'

export type KeyRefusal = { ok: false; status: 403 | 404 | 409; message: string }
export type NewKeyView = { id: string; name: string; environment: 'live' | 'test'; prefix: string; key: string; team_id?: string }

export async function createKeyFor(
  auth: Pick<Authentication, 'kind'>,
  user: SessionUser,
  input: z.output<typeof createApiKeySchema>,
): Promise<{ ok: true; key: NewKeyView } | KeyRefusal> {
  if (auth.kind === 'key') return { ok: false, status: 403, message: KEYS_NEED_SESSION }
  if (input.team_id) {
    try {
      await requireTeamManager(user.id, input.team_id)
    } catch (error) {
      if (error instanceof TeamError && (error.status === 403 || error.status === 404)) return { ok: false, status: error.status, message: error.message }
      throw error
    }
  }
  const made = await createApiKey(user.id, { name: input.name, environment: input.environment, teamId: input.team_id ?? null })
  if (!made.ok) return { ok: false, status: 409, message: KEY_LIMIT_REACHED }
  const { id, name, environment, prefix, key } = made.key
  return { ok: true, key: { id, name, environment, prefix, key, ...(input.team_id ? { team_id: input.team_id } : {}) } }
}

export async function revokeKeyFor(auth: Pick<Authentication, 'kind'>, user: SessionUser, keyId: string): Promise<{ ok: true } | KeyRefusal> {
  if (auth.kind === 'key') return { ok: false, status: 403, message: KEYS_NEED_SESSION }
  return (await revokeApiKey(user.id, keyId)) ? { ok: true } : { ok: false, status: 404, message: KEY_NOT_FOUND }
}

export async function listKeysFor(user: SessionUser) {
  return (await listApiKeys(user.id)).map(publicKey)
}
