// Deleting one's own account (decision 171), from the dashboard or the API, confirmed with the
// password (a session or a key alone is not enough: either may have been left open or leaked).
//
// One transaction does it all, or nothing: the user's row and credit account are locked first (a run
// that would charge the account waits, then finds no credential); runs still in progress, or a team
// the user is the last owner of while others remain, refuse the whole deletion. Removed: sessions,
// mailed tokens, API keys (revoked and audited, personal ones deleted), results, corrections, runs
// and batches (on a team's account the user's results and corrections go, the run's record stays for
// the team's books, its file name erased), webhooks, every team membership, invites to or from them,
// contact messages and waitlist entries sent from the address. Kept: the ledger, every row of it,
// whose sum is still the balance: what was left of the balance is taken off by one last entry
// (writeEntry, through deduct), so the account ends at zero. The user's row stays as the ledger's
// anchor, emptied: an address of its own under .invalid (so the real one can sign up again, as a new
// account), no names, no usable password. The audit log records the deletion with the address it had.
// The mail confirming it goes out once everything is committed. Results and uploads live in the
// database (sealed), so nothing on disk is left to delete afterwards.
import type { Transaction } from 'kysely'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import type { Database } from '~/db/schema'
import { recordAudit } from '~/features/audit/audit.server'
import { revokeKeysMadeBy } from '~/features/api-keys/keys.server'
import { accountDeletedMail } from '~/features/auth/emails.server'
import { verifyPassword } from '~/features/auth/password.server'
import { deduct } from '~/features/credits/ledger.server'
import { sendMailInBackground } from '~/features/mail/mailer.server'
import { departAllTeams, teamsHeldAsLastOwner } from '~/features/teams/teams.server'
import { ALREADY_DELETED, BALANCE_FORFEITED, DELETION_KEEPS, lastOwnerMessage, RUNS_IN_PROGRESS, WRONG_PASSWORD } from './messages'

export interface DeletionSummary {
  sessions_ended: number
  api_keys_revoked: number
  results_deleted: number
  corrections_deleted: number
  runs_deleted: number
  batches_deleted: number
  webhooks_removed: number
  invites_removed: number
  teams_left: string[]
  teams_closed: string[]
  credits_forfeited: number
  ledger_entries_kept: number
}

export type DeletionOutcome = { ok: true; summary: DeletionSummary } | { ok: false; status: 403 | 404 | 409; message: string }

/** The address a deleted account's row keeps: unique, never deliverable (.invalid is reserved), never a real one. */
export function deletedAddress(userId: string): string {
  return `deleted-${userId}@deleted.invalid`
}

/** A refusal found inside the transaction: thrown so that everything done before it rolls back. */
class Refused extends Error {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message)
  }
}

const count = (result: { numDeletedRows?: bigint; numUpdatedRows?: bigint }) => Number(result.numDeletedRows ?? result.numUpdatedRows ?? 0n)

export async function deleteAccount(userId: string, input: { password: string; via: 'dashboard' | 'api' }, db: DbOrTx = getDb()): Promise<DeletionOutcome> {
  const found = await db.selectFrom('users').select('password_hash').where('id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst()
  if (!found) return { ok: false, status: 404, message: ALREADY_DELETED }
  // The slow hash before the transaction: it never holds a lock.
  if (!(await verifyPassword(input.password, found.password_hash))) return { ok: false, status: 403, message: WRONG_PASSWORD }
  try {
    const done = await executeTx(db, (trx) => deleteInTransaction(userId, input.via, trx))
    sendMailInBackground(accountDeletedMail(done.email, done.firstName, DELETION_KEEPS))
    return { ok: true, summary: done.summary }
  } catch (error) {
    if (error instanceof Refused) return { ok: false, status: error.status, message: error.message }
    throw error
  }
}

async function deleteInTransaction(userId: string, via: 'dashboard' | 'api', trx: Transaction<Database>) {
  const user = await trx.selectFrom('users').select(['email', 'first_name']).where('id', '=', userId).where('deleted_at', 'is', null).forUpdate().executeTakeFirst()
  if (!user) throw new Refused(404, ALREADY_DELETED)
  const own = await trx.selectFrom('credit_accounts').select(['id', 'balance']).where('user_id', '=', userId).forUpdate().executeTakeFirst()
  const ownId = own?.id ?? null

  const running = await trx
    .selectFrom('tool_jobs')
    .select('id')
    .where((eb) => eb.or([eb('user_id', '=', userId), ...(ownId ? [eb('account_id', '=', ownId)] : [])]))
    .where('status', 'in', ['queued', 'running'])
    .limit(1)
    .executeTakeFirst()
  if (running) throw new Refused(409, RUNS_IN_PROGRESS)

  // Credentials first: every key revoked (each audited; a team's close then finds its keys revoked already).
  const keys = await revokeKeysMadeBy(userId, 'account_deleted', trx)
  const teams = await departAllTeams(userId, trx)
  if (teams.blocking.length > 0) throw new Refused(409, lastOwnerMessage(teams.blocking.map((t) => t.name)))

  // Personal keys deleted (their names are the user's words); sessions and mailed tokens gone.
  await trx.deleteFrom('api_keys').where('user_id', '=', userId).where('team_id', 'is', null).execute()
  const sessions = await trx.deleteFrom('sessions').where('user_id', '=', userId).where('revoked_at', 'is', null).where('expires_at', '>', new Date()).executeTakeFirst()
  await trx.deleteFrom('sessions').where('user_id', '=', userId).execute()
  await trx.deleteFrom('user_tokens').where('user_id', '=', userId).execute()

  // On teams' accounts: the user's results and corrections go; the run's record stays for the team's books, nameless.
  const teamJobs = trx
    .selectFrom('tool_jobs')
    .where('user_id', '=', userId)
    .where((eb) => (ownId ? eb('account_id', '!=', ownId) : eb.lit(true)))
  const teamResults = await trx.deleteFrom('results').where('id', 'in', teamJobs.select('result_id').where('result_id', 'is not', null).$narrowType<{ result_id: string }>()).executeTakeFirst()
  const teamEdits = await trx.deleteFrom('result_edits').where('job_id', 'in', teamJobs.select('id')).executeTakeFirst()
  await trx
    .updateTable('tool_jobs')
    .set({ original_name: 'deleted', result_id: null, upload_iv: null, upload_auth_tag: null, upload_ciphertext: null })
    .where('user_id', '=', userId)
    .where((eb) => (ownId ? eb('account_id', '!=', ownId) : eb.lit(true)))
    .execute()

  // The user's own account: results, corrections, batches and runs, and its webhooks.
  let results = 0
  let edits = 0
  let batches = 0
  let runs = 0
  let webhooks = 0
  if (ownId) {
    results = count(await trx.deleteFrom('results').where('owner_account_id', '=', ownId).executeTakeFirst())
    edits = count(await trx.deleteFrom('result_edits').where('account_id', '=', ownId).executeTakeFirst())
    runs = count(await trx.deleteFrom('tool_jobs').where('account_id', '=', ownId).executeTakeFirst())
    batches = count(await trx.deleteFrom('batches').where('account_id', '=', ownId).executeTakeFirst())
    webhooks = count(await trx.deleteFrom('webhook_endpoints').where('account_id', '=', ownId).executeTakeFirst())
  }

  // Invites to the address (pending or not: they hold it) and what was sent from it.
  const invites = await trx.deleteFrom('team_invites').where('email', '=', user.email).executeTakeFirst()
  await trx.deleteFrom('contact_messages').where('email', '=', user.email).execute()
  await trx.deleteFrom('api_waitlist').where('email', '=', user.email).execute()

  // The ledger stays; what is left of the balance is taken off by one last entry, so the account ends at zero.
  let forfeited = 0
  if (own && own.balance > 0) {
    const taken = await deduct({ accountId: own.id, amount: own.balance, description: BALANCE_FORFEITED }, trx)
    if (taken.ok) forfeited = own.balance
  }
  const kept = await trx
    .selectFrom('credit_transactions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where((eb) => eb.or([eb('user_id', '=', userId), ...(ownId ? [eb('account_id', '=', ownId)] : [])]))
    .executeTakeFirstOrThrow()

  const summary: DeletionSummary = {
    sessions_ended: count(sessions),
    api_keys_revoked: keys.length,
    results_deleted: results + count(teamResults),
    corrections_deleted: edits + count(teamEdits),
    runs_deleted: runs,
    batches_deleted: batches,
    webhooks_removed: webhooks,
    invites_removed: count(invites),
    teams_left: teams.left.map((t) => t.name),
    teams_closed: teams.closed.map((t) => t.name),
    credits_forfeited: forfeited,
    ledger_entries_kept: Number(kept.n),
  }
  // Written while the row still has its address: the log's email is a snapshot of the actor.
  await recordAudit({ actor: { userId }, action: 'account.delete', targetType: 'user', targetId: userId, details: { ...summary, via } }, trx)
  const now = new Date()
  await trx
    .updateTable('users')
    .set({ email: deletedAddress(userId), first_name: null, last_name: null, password_hash: 'deleted', email_verified_at: null, deleted_at: now, updated_at: now })
    .where('id', '=', userId)
    .execute()
  return { email: user.email, firstName: user.first_name, summary }
}

/** What the confirmation page tells before anything is done: the credits that would be forfeited, the teams in the way. */
export async function deletionPreview(userId: string, db: DbOrTx = getDb()): Promise<{ balance: number; blockingTeams: string[] }> {
  const own = await db.selectFrom('credit_accounts').select('balance').where('user_id', '=', userId).executeTakeFirst()
  const blocking = await teamsHeldAsLastOwner(userId, db)
  return { balance: own?.balance ?? 0, blockingTeams: blocking.map((t) => t.name) }
}
