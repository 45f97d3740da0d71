// A signed-in user's data, as a download (decision 171): one zip holding `facet-studio-export.json`
// (everything the studio keeps about the account, as JSON) and, under `results/`, every result file
// still kept (results live 24 hours). A zip, not JSON alone, because the results are images: base64 in
// JSON would swell them by a third and leave the user to decode them. The zip is written as it is
// sent: results are read and decrypted one at a time, so an account with many results costs the server
// one result's memory, not all of them.
//
// Never in it: secrets and hashes (password, session and key hashes, webhook signing secrets,
// mailed tokens), other people's personal data (a team's other members appear by role only), and the
// working copies kept for corrections (the upload the user sent; its corrections are in the JSON).
import { Readable } from 'node:stream'
import yazl from 'yazl'
import { getDb, type DbOrTx } from '~/db/db.server'
import { readResult } from '~/features/jobs/results.server'
import { contentDisposition } from '~/http/headers'

export const EXPORT_FORMAT = 'facet-studio-export'
export const EXPORT_VERSION = 1
export const EXPORT_JSON_NAME = 'facet-studio-export.json'

/** What the JSON says it leaves out, and why: a reader of the file should not have to guess. */
export const EXPORT_NOT_INCLUDED = [
  'Secrets and hashes: your password hash, session and API key hashes, webhook signing secrets and mailed links.',
  'Uploads: an upload is deleted when its run ends; the copy a result keeps for corrections is not repeated here.',
  'Results older than 24 hours: they are deleted automatically and cannot be exported.',
  "Other people's data: a team's other members and their activity belong to the team (the invites you sent are listed, with the address you typed).",
  'Usage analytics: page views are recorded with a random per-tab identifier that is not linked to your account.',
]

const iso = (value: Date | string | null | undefined): string | null => (value ? new Date(value).toISOString() : null)
const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value)

/** A result file the zip carries: its path in the zip and where to read it. */
export interface ExportedFile {
  path: string
  resultId: string
  accountId: string
}

export interface AccountExport {
  document: Record<string, unknown>
  files: ExportedFile[]
}

/** Everything the export holds, read at one moment (`now` decides which results are still kept). */
export async function collectAccountData(userId: string, now: Date = new Date(), db: DbOrTx = getDb()): Promise<AccountExport> {
  const user = await db
    .selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name', 'email_verified_at', 'created_at', 'updated_at'])
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow()
  const own = await db.selectFrom('credit_accounts').select(['id', 'balance', 'lifetime_spent', 'created_at']).where('user_id', '=', userId).executeTakeFirst()
  const ownId = own?.id ?? null

  const memberships = await db
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .leftJoin('credit_accounts as a', 'a.team_id', 't.id')
    .select(['t.id', 't.name', 'm.role', 'm.monthly_cap', 'm.joined_at', 'a.id as account_id'])
    .where('m.user_id', '=', userId)
    .orderBy('m.joined_at')
    .execute()

  // The ledger: every entry of the user's own account, and on a team's account the entries made for them.
  const entries = await db
    .selectFrom('credit_transactions as c')
    .leftJoin('credit_accounts as a', 'a.id', 'c.account_id')
    .select(['c.id', 'c.account_id', 'a.team_id', 'c.kind', 'c.delta', 'c.balance_after', 'c.description', 'c.tool_slug', 'c.reverses_id', 'c.api_key_id', 'c.created_at'])
    .where((eb) => eb.or([eb('c.user_id', '=', userId), ...(ownId ? [eb('c.account_id', '=', ownId)] : [])]))
    .orderBy('c.id')
    .execute()

  // Jobs: every run on the user's own account, and the runs they sent on a team's.
  const jobs = await db
    .selectFrom('tool_jobs as j')
    .leftJoin('credit_accounts as a', 'a.id', 'j.account_id')
    .leftJoin('results as r', (join) => join.onRef('r.id', '=', 'j.result_id').onRef('r.owner_account_id', '=', 'j.account_id').on('r.expires_at', '>', now))
    .select([
      'j.id',
      'j.account_id',
      'a.team_id',
      'j.tool',
      'j.options',
      'j.original_name',
      'j.input_bytes',
      'j.input_width',
      'j.input_height',
      'j.status',
      'j.outcome',
      'j.refunded',
      'j.error',
      'j.note',
      'j.model',
      'j.faces_found',
      'j.batch_id',
      'j.batch_position',
      'j.test_mode',
      'j.created_at',
      'j.finished_at',
      'r.id as result_id',
      'r.filename as result_filename',
      'r.content_type as result_content_type',
      'r.expires_at as result_expires_at',
    ])
    .where((eb) => eb.or([eb('j.user_id', '=', userId), ...(ownId ? [eb('j.account_id', '=', ownId)] : [])]))
    .orderBy('j.created_at')
    .execute()

  const files: ExportedFile[] = []
  const fileOf = new Map<string, string>()
  const addFile = (resultId: string, accountId: string, filename: string) => {
    if (fileOf.has(resultId)) return fileOf.get(resultId)!
    // Named by the result's id (its file name is in the JSON): an id is safe to extract on any system.
    const extension = /\.([a-z0-9]{1,5})$/i.exec(filename)?.[1]?.toLowerCase() ?? 'bin'
    const path = `results/${resultId}.${extension}`
    files.push({ path, resultId, accountId })
    fileOf.set(resultId, path)
    return path
  }
  const jobViews = jobs.map((j) => ({
    id: j.id,
    paid_by: j.team_id ? { team_id: j.team_id } : 'you',
    tool: j.tool,
    options: json(j.options),
    file_name: j.original_name,
    input: { bytes: j.input_bytes, width: j.input_width, height: j.input_height },
    status: j.status,
    outcome: j.outcome,
    refunded: j.refunded,
    error: j.error,
    note: j.note,
    model: j.model,
    faces_found: j.faces_found,
    batch_id: j.batch_id,
    batch_position: j.batch_position,
    test_mode: j.test_mode,
    created_at: iso(j.created_at),
    finished_at: iso(j.finished_at),
    result: j.result_id
      ? {
          id: j.result_id,
          filename: j.result_filename,
          content_type: j.result_content_type,
          expires_at: iso(j.result_expires_at),
          file: addFile(j.result_id, j.account_id, j.result_filename ?? 'result'),
        }
      : null,
  }))
  // A result of the own account that no job names (none is made that way today, but a kept file is the user's).
  if (ownId) {
    const loose = await db
      .selectFrom('results')
      .select(['id', 'filename', 'content_type', 'expires_at'])
      .where('owner_account_id', '=', ownId)
      .where('expires_at', '>', now)
      .orderBy('created_at')
      .execute()
    for (const r of loose) addFile(r.id, ownId, r.filename)
  }

  const jobIds = jobs.map((j) => j.id)
  const corrections = jobIds.length
    ? await db.selectFrom('result_edits').select(['job_id', 'kind', 'facts', 'corrections', 'created_at', 'corrected_at', 'expires_at']).where('job_id', 'in', jobIds).where('expires_at', '>', now).orderBy('created_at').execute()
    : []
  const batches = ownId
    ? await db.selectFrom('batches').select(['id', 'tool', 'total', 'status', 'skipped', 'created_at', 'completed_at']).where('account_id', '=', ownId).orderBy('created_at').execute()
    : []
  const keys = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'environment', 'prefix', 'team_id', 'created_at', 'last_used_at', 'revoked_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .execute()
  const invitesReceived = await db
    .selectFrom('team_invites as i')
    .innerJoin('teams as t', 't.id', 'i.team_id')
    .select(['i.id', 'i.team_id', 't.name as team_name', 'i.role', 'i.created_at', 'i.expires_at', 'i.accepted_at', 'i.revoked_at'])
    .where('i.email', '=', user.email)
    .orderBy('i.created_at')
    .execute()
  const invitesSent = await db
    .selectFrom('team_invites as i')
    .innerJoin('teams as t', 't.id', 'i.team_id')
    .select(['i.id', 'i.team_id', 't.name as team_name', 'i.email', 'i.role', 'i.created_at', 'i.expires_at', 'i.accepted_at', 'i.revoked_at'])
    .where('i.invited_by', '=', userId)
    .orderBy('i.created_at')
    .execute()
  const webhooks = ownId
    ? await db.selectFrom('webhook_endpoints').select(['id', 'url', 'events', 'created_at']).where('account_id', '=', ownId).orderBy('created_at').execute()
    : []
  const contact = await db.selectFrom('contact_messages').select(['full_name', 'company', 'message', 'created_at']).where('email', '=', user.email).orderBy('created_at').execute()
  const waitlist = await db.selectFrom('api_waitlist').select(['created_at']).where('email', '=', user.email).execute()

  const document = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: now.toISOString(),
    account: {
      id: user.id,
      email: user.email,
      first_name: user.first_name,
      last_name: user.last_name,
      email_verified: user.email_verified_at !== null,
      email_verified_at: iso(user.email_verified_at),
      created_at: iso(user.created_at),
      updated_at: iso(user.updated_at),
      // The studio has no subscription plans: an account pays with its own credits, or a team's.
      plan: { account_type: 'user', credits: 'pay per run' },
    },
    credits: {
      account_id: ownId,
      balance: own?.balance ?? 0,
      lifetime_spent: own?.lifetime_spent ?? 0,
      created_at: iso(own?.created_at),
      ledger: entries.map((e) => ({
        id: Number(e.id),
        account: e.team_id ? { team_id: e.team_id } : 'you',
        kind: e.kind,
        delta: e.delta,
        balance_after: e.balance_after,
        description: e.description,
        tool: e.tool_slug,
        reverses_id: e.reverses_id === null ? null : Number(e.reverses_id),
        api_key_id: e.api_key_id,
        created_at: iso(e.created_at),
      })),
    },
    jobs: jobViews,
    batches: batches.map((b) => ({ ...b, skipped: json(b.skipped), created_at: iso(b.created_at), completed_at: iso(b.completed_at) })),
    corrections: corrections.map((c) => ({
      job_id: c.job_id,
      kind: c.kind,
      found_by_the_model: json(c.facts),
      your_corrections: json(c.corrections),
      created_at: iso(c.created_at),
      corrected_at: iso(c.corrected_at),
      expires_at: iso(c.expires_at),
    })),
    api_keys: keys.map((k) => ({ ...k, created_at: iso(k.created_at), last_used_at: iso(k.last_used_at), revoked_at: iso(k.revoked_at) })),
    teams: memberships.map((m) => ({ id: m.id, name: m.name, role: m.role, monthly_cap: m.monthly_cap, joined_at: iso(m.joined_at) })),
    invites: {
      received: invitesReceived.map((i) => ({ ...i, created_at: iso(i.created_at), expires_at: iso(i.expires_at), accepted_at: iso(i.accepted_at), revoked_at: iso(i.revoked_at) })),
      sent: invitesSent.map((i) => ({ ...i, created_at: iso(i.created_at), expires_at: iso(i.expires_at), accepted_at: iso(i.accepted_at), revoked_at: iso(i.revoked_at) })),
    },
    webhooks: webhooks.map((w) => ({ id: w.id, url: w.url, events: w.events, created_at: iso(w.created_at) })),
    messages: {
      contact: contact.map((c) => ({ ...c, created_at: iso(c.created_at) })),
      api_waitlist: waitlist.map((w) => ({ created_at: iso(w.created_at) })),
    },
    result_files: files.map((f) => f.path),
    not_included: EXPORT_NOT_INCLUDED,
  }
  return { document, files }
}

/** The download's file name: the day it was made, so two exports do not overwrite each other by surprise. */
export function exportFileName(now: Date): string {
  return `facet-studio-export-${now.toISOString().slice(0, 10)}.zip`
}

/**
 * The zip as a stream: the JSON first, then each result, read and decrypted only when its turn comes.
 * A result the hourly sweeper deletes between the reading of the list and its turn stays in the zip as
 * an empty file (the JSON names it): it was kept when the export began.
 */
export function exportZipStream(data: AccountExport, now: Date = new Date()): ReadableStream<Uint8Array> {
  const zip = new yazl.ZipFile()
  zip.addBuffer(Buffer.from(JSON.stringify(data.document, null, 2)), EXPORT_JSON_NAME)
  for (const file of data.files) {
    zip.addReadStreamLazy(file.path, { compress: false }, (done) => {
      readResult(file.resultId, file.accountId, { now })
        .then((result) => done(null, Readable.from(result ? [result.bytes] : [])))
        .catch((error: unknown) => done(error, Readable.from([])))
    })
  }
  zip.end()
  return Readable.toWeb(zip.outputStream as Readable) as ReadableStream<Uint8Array>
}

/** The user's export, ready to send: its name and its bytes as they are written. */
export async function exportAccount(userId: string, now: Date = new Date()): Promise<{ filename: string; body: ReadableStream<Uint8Array> }> {
  const data = await collectAccountData(userId, now)
  return { filename: exportFileName(now), body: exportZipStream(data, now) }
}

/** The export as an HTTP answer: a zip download, never cached. */
export async function exportResponse(userId: string, now: Date = new Date()): Promise<Response> {
  const { filename, body } = await exportAccount(userId, now)
  return new Response(body, {
    status: 200,
    headers: { 'Content-Type': 'application/zip', 'Content-Disposition': contentDisposition(filename), 'Cache-Control': 'private, no-store' },
  })
}
