// Teams: create, look at, invite, accept, change and remove members, leave, and choose the team a
// browser session works as. Every write that counts seats or owners first locks the team's row, so
// two admins inviting at once cannot pass the seat limit and two owners leaving at once cannot leave
// the team without one. Business rules (roles, seats, last owner) are here and nowhere else.
import { createHash, randomBytes } from 'node:crypto'
import { sql, type Transaction } from 'kysely'
import { config } from '~/config.server'
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import type { Database } from '~/db/schema'
import { memberChangeEntries, recordAudit } from '~/features/audit/audit.server'
import { sendMail } from '~/features/mail/mailer.server'
import { consumeRateLimit, type RateLimitRule } from '~/features/security/rate-limit.server'
import { isUuid } from '~/utils/uuid'
import { inviteLink, inviteMail } from './emails.server'
import { monthStart, spendByMember, SPEND_ROWS } from './membership.server'
import {
  ALREADY_MEMBER,
  INVITE_EXPIRED,
  INVITE_NOT_FOUND,
  INVITE_REVOKED,
  INVITE_USED,
  LAST_OWNER,
  MANAGERS_ONLY,
  MEMBER_NOT_FOUND,
  NAME_REQUIRED,
  OWNERS_ONLY,
  seatsFull,
  memberSeatsFull,
  TEAM_NOT_FOUND,
  TOO_MANY_TEAMS,
  wrongAddress,
} from './messages'
import { INVITE_TTL_DAYS, managesTeam, MAX_MONTHLY_CAP, MAX_OWNED_TEAMS, TEAM_NAME_MAX, TEAM_ROLES, type TeamRole } from './roles'

export type { TeamRole }
export { TEAM_ROLES }

/** Invites one owner or admin may send per hour: each one is a mail to an address they typed. */
export const TEAM_INVITE_RATE: RateLimitRule = { name: 'team-invite', points: 30, durationSeconds: 3600 }

export class TeamError extends Error {
  constructor(
    public status: 400 | 402 | 403 | 404 | 409 | 410 | 429,
    message: string,
  ) {
    super(message)
    this.name = 'TeamError'
  }
}

export interface TeamSummary {
  id: string
  name: string
  role: TeamRole
}
export interface TeamMemberView {
  userId: string
  email: string
  name: string | null
  role: TeamRole
  spentThisMonth: number
  cap: number | null
}
export interface TeamInviteView {
  id: string
  email: string
  role: TeamRole
  expiresAt: Date
}
export interface TeamView {
  id: string
  name: string
  balance: number
  seats: { used: number; limit: number }
  viewerRole: TeamRole
  /** Owner/admin: every member; member: only themselves. */
  members: TeamMemberView[]
  /** Pending invites; [] for members. */
  invites: TeamInviteView[]
  /** The whole team's this month (owner/admin), the viewer's own (member). */
  spentThisMonth: number
}
export interface TeamActivityEntry {
  id: string
  at: Date
  /** The member the row was made for; '' for a row that is no member's (an operator's grant). */
  email: string
  tool: string | null
  /** Signed, as in the ledger: a run's charge is negative, its refund and grants positive. */
  credits: number
  description: string | null
}

type Trx = Transaction<Database>

export function hashInviteToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

function displayName(user: { first_name: string | null; last_name: string | null }): string | null {
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ').trim()
  return name || null
}

function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}

/** The team row, locked for this transaction (seat and owner counts are decided under it). */
async function lockTeam(trx: Trx, teamId: string) {
  if (!isUuid(teamId)) throw new TeamError(404, TEAM_NOT_FOUND)
  const team = await trx.selectFrom('teams').select(['id', 'name', 'seat_limit']).where('id', '=', teamId).forUpdate().executeTakeFirst()
  if (!team) throw new TeamError(404, TEAM_NOT_FOUND)
  return team
}

async function roleOf(db: DbOrTx, teamId: string, userId: string): Promise<TeamRole | null> {
  if (!isUuid(teamId)) return null
  const row = await db.selectFrom('team_members').select('role').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst()
  return row?.role ?? null
}

/** The actor's role; 404 when they are not a member (another team's anything looks like nothing). */
async function requireRole(db: DbOrTx, teamId: string, userId: string): Promise<TeamRole> {
  const role = await roleOf(db, teamId, userId)
  if (!role) throw new TeamError(404, TEAM_NOT_FOUND)
  return role
}

async function requireManager(db: DbOrTx, teamId: string, userId: string): Promise<TeamRole> {
  const role = await requireRole(db, teamId, userId)
  if (!managesTeam(role)) throw new TeamError(403, MANAGERS_ONLY)
  return role
}

/** Owners and admins manage the team's keys; 404 to non-members, 403 to members. */
export async function requireTeamManager(userId: string, teamId: string, dbOrTx: DbOrTx = getDb()): Promise<TeamRole> {
  return requireManager(dbOrTx, teamId, userId)
}

async function countOwners(trx: Trx, teamId: string): Promise<number> {
  const row = await trx
    .selectFrom('team_members')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('team_id', '=', teamId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow()
  return row.n
}

/**
 * The seat rule (docs/decisions/086), here only: seats are members plus pending invites, and an
 * operator may lower a team's limit below the seats in use. A lowered limit blocks only what it
 * must: a new invite takes a seat, so it needs members + pending < limit; accepting an invite uses
 * the seat the invite already holds, so it needs only members < limit (invites beyond the lowered
 * limit are accepted first come, first served, until the members fill it). Nobody is removed.
 */
export function newInviteFits(seats: { members: number; pending: number }, limit: number): boolean {
  return seats.members + seats.pending < limit
}

export function acceptanceFits(seats: { members: number }, limit: number): boolean {
  return seats.members < limit
}

/** Seats in use: members plus invites still pending (neither accepted, withdrawn nor expired). */
async function seatsUsed(db: DbOrTx, teamId: string, now: Date): Promise<number> {
  const seats = await seatCounts(db, teamId, now)
  return seats.members + seats.pending
}

async function seatCounts(db: DbOrTx, teamId: string, now: Date): Promise<{ members: number; pending: number }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('team_members').select(sql<number>`count(*)::int`.as('n')).where('team_id', '=', teamId).as('members'),
      eb
        .selectFrom('team_invites')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('team_id', '=', teamId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .as('invites'),
    ])
    .executeTakeFirstOrThrow()
  return { members: row.members ?? 0, pending: row.invites ?? 0 }
}

export async function listTeamsForUser(userId: string, dbOrTx: DbOrTx = getDb()): Promise<TeamSummary[]> {
  return dbOrTx
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select(['t.id', 't.name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('t.name')
    .orderBy('t.id')
    .execute()
}

export function checkTeamName(name: string): string {
  const trimmed = name.trim()
  if (!trimmed || trimmed.length > TEAM_NAME_MAX) throw new TeamError(400, NAME_REQUIRED)
  return trimmed
}

/** A new team with its creator as owner and a credit account at 0 (operators grant credits). */
export async function createTeam(userId: string, name: string, dbOrTx: DbOrTx = getDb()): Promise<{ id: string; name: string }> {
  const teamName = checkTeamName(name)
  return executeTx(dbOrTx, async (trx) => {
    const owned = await trx
      .selectFrom('team_members')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('user_id', '=', userId)
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow()
    if (owned.n >= MAX_OWNED_TEAMS) throw new TeamError(409, TOO_MANY_TEAMS)
    const team = await trx
      .insertInto('teams')
      .values({ name: teamName, seat_limit: config().TEAM_SEAT_LIMIT, created_by: userId })
      .returning(['id', 'name'])
      .executeTakeFirstOrThrow()
    await trx.insertInto('team_members').values({ team_id: team.id, user_id: userId, role: 'owner', monthly_cap: null }).execute()
    await trx.insertInto('credit_accounts').values({ team_id: team.id, balance: 0, last_refresh_day: null }).execute()
    return team
  })
}

export async function getTeamView(teamId: string, viewerUserId: string, dbOrTx: DbOrTx = getDb(), now: Date = new Date()): Promise<TeamView> {
  const viewerRole = await requireRole(dbOrTx, teamId, viewerUserId)
  const team = await dbOrTx
    .selectFrom('teams as t')
    .innerJoin('credit_accounts as a', 'a.team_id', 't.id')
    .select(['t.id', 't.name', 't.seat_limit', 'a.id as accountId', 'a.balance'])
    .where('t.id', '=', teamId)
    .executeTakeFirstOrThrow()
  const manager = managesTeam(viewerRole)
  let members = dbOrTx
    .selectFrom('team_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'm.role', 'm.monthly_cap', 'u.email', 'u.first_name', 'u.last_name'])
    .where('m.team_id', '=', teamId)
    .orderBy(sql`case m.role when 'owner' then 0 when 'admin' then 1 else 2 end`)
    .orderBy('u.email')
  if (!manager) members = members.where('m.user_id', '=', viewerUserId)
  const [rows, spend, seats, invites] = await Promise.all([
    members.execute(),
    spendByMember(team.accountId, monthStart(now), dbOrTx),
    seatsUsed(dbOrTx, teamId, now),
    manager
      ? dbOrTx
          .selectFrom('team_invites')
          .select(['id', 'email', 'role', 'expires_at'])
          .where('team_id', '=', teamId)
          .where('accepted_at', 'is', null)
          .where('revoked_at', 'is', null)
          .where('expires_at', '>', now)
          .orderBy('created_at', 'desc')
          .execute()
      : Promise.resolve([]),
  ])
  const memberViews = rows.map((r) => ({
    userId: r.user_id,
    email: r.email,
    name: displayName(r),
    role: r.role,
    spentThisMonth: spend.get(r.user_id) ?? 0,
    cap: r.monthly_cap,
  }))
  const spentThisMonth = manager ? [...spend.values()].reduce((a, b) => a + b, 0) : (spend.get(viewerUserId) ?? 0)
  return {
    id: team.id,
    name: team.name,
    balance: team.balance,
    seats: { used: seats, limit: team.seat_limit },
    viewerRole,
    members: memberViews,
    invites: invites.map((i) => ({ id: i.id, email: i.email, role: i.role, expiresAt: i.expires_at })),
    spentThisMonth,
  }
}

/** The team's ledger rows, newest first: owners and admins see every row, members their own. */
export async function teamActivity(
  teamId: string,
  viewerUserId: string,
  options: { limit?: number } = {},
  dbOrTx: DbOrTx = getDb(),
): Promise<TeamActivityEntry[]> {
  const role = await requireRole(dbOrTx, teamId, viewerUserId)
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 200)
  let query = dbOrTx
    .selectFrom('credit_transactions as c')
    .innerJoin('credit_accounts as a', 'a.id', 'c.account_id')
    .leftJoin('users as u', 'u.id', 'c.user_id')
    .select(['c.id', 'c.created_at', 'u.email', 'c.tool_slug', 'c.delta', 'c.description'])
    .where('a.team_id', '=', teamId)
    .orderBy('c.id', 'desc')
    .limit(limit)
  if (!managesTeam(role)) query = query.where('c.user_id', '=', viewerUserId).where(SPEND_ROWS)
  const rows = await query.execute()
  return rows.map((r) => ({
    id: String(r.id),
    at: r.created_at,
    email: r.email ?? '',
    tool: r.tool_slug,
    credits: r.delta,
    description: r.description,
  }))
}

/**
 * Invites an address: owners and admins (only owners invite owners). A pending invite for the same
 * address is replaced (its link stops working), so re-sending never takes a second seat. The mail
 * goes out after the invite is committed.
 */
export async function inviteMember(
  actorUserId: string,
  teamId: string,
  input: { email: string; role: TeamRole },
  dbOrTx: DbOrTx = getDb(),
  now: Date = new Date(),
): Promise<{ inviteId: string; expiresAt: Date }> {
  const email = normaliseEmail(input.email)
  const token = randomBytes(32).toString('base64url')
  const expiresAt = new Date(now.getTime() + INVITE_TTL_DAYS * 86_400_000)
  const limited = await consumeRateLimit(TEAM_INVITE_RATE, actorUserId)
  if (!limited.ok) throw new TeamError(429, `Too many invites in a short time. Try again in ${Math.ceil(limited.retryAfterSeconds / 60)} minutes.`)
  const made = await executeTx(dbOrTx, async (trx) => {
    const team = await lockTeam(trx, teamId)
    const actorRole = await requireManager(trx, teamId, actorUserId)
    if (input.role === 'owner' && actorRole !== 'owner') throw new TeamError(403, OWNERS_ONLY)
    const existingMember = await trx
      .selectFrom('team_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select('m.user_id')
      .where('m.team_id', '=', teamId)
      .where(sql`lower(u.email)`, '=', email)
      .executeTakeFirst()
    if (existingMember) throw new TeamError(409, ALREADY_MEMBER)
    await trx
      .updateTable('team_invites')
      .set({ revoked_at: now })
      .where('team_id', '=', teamId)
      .where('email', '=', email)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .execute()
    if (!newInviteFits(await seatCounts(trx, teamId, now), team.seat_limit)) throw new TeamError(409, seatsFull(team.seat_limit))
    const invite = await trx
      .insertInto('team_invites')
      .values({ team_id: teamId, email, role: input.role, token_hash: hashInviteToken(token), invited_by: actorUserId, expires_at: expiresAt })
      .returning('id')
      .executeTakeFirstOrThrow()
    await recordAudit({ actor: { userId: actorUserId }, action: 'team.invite.send', targetType: 'team', targetId: teamId, details: { email, role: input.role, inviteId: invite.id } }, trx)
    const inviter = await trx.selectFrom('users').select(['email', 'first_name', 'last_name']).where('id', '=', actorUserId).executeTakeFirstOrThrow()
    return { inviteId: invite.id, teamName: team.name, inviterName: displayName(inviter) ?? inviter.email }
  })
  await sendMail(inviteMail(email, { teamName: made.teamName, inviterName: made.inviterName, role: input.role, link: inviteLink(token) }))
  return { inviteId: made.inviteId, expiresAt }
}

export async function revokeInvite(actorUserId: string, teamId: string, inviteId: string, dbOrTx: DbOrTx = getDb()): Promise<void> {
  await executeTx(dbOrTx, async (trx) => {
    await lockTeam(trx, teamId)
    const actorRole = await requireManager(trx, teamId, actorUserId)
    if (!isUuid(inviteId)) throw new TeamError(404, INVITE_NOT_FOUND)
    const invite = await trx
      .selectFrom('team_invites')
      .select(['role', 'accepted_at', 'revoked_at'])
      .where('id', '=', inviteId)
      .where('team_id', '=', teamId)
      .executeTakeFirst()
    if (!invite) throw new TeamError(404, INVITE_NOT_FOUND)
    if (invite.role === 'owner' && actorRole !== 'owner') throw new TeamError(403, OWNERS_ONLY)
    if (invite.accepted_at) throw new TeamError(410, INVITE_USED)
    if (invite.revoked_at) return
    await trx.updateTable('team_invites').set({ revoked_at: new Date() }).where('id', '=', inviteId).execute()
    await recordAudit({ actor: { userId: actorUserId }, action: 'team.invite.revoke', targetType: 'team', targetId: teamId, details: { inviteId, role: invite.role } }, trx)
  })
}

type InviteStatus = 'pending' | 'expired' | 'used' | 'revoked'

function inviteStatus(invite: { accepted_at: Date | null; revoked_at: Date | null; expires_at: Date }, now: Date): InviteStatus {
  if (invite.accepted_at) return 'used'
  if (invite.revoked_at) return 'revoked'
  if (invite.expires_at.getTime() <= now.getTime()) return 'expired'
  return 'pending'
}

const STATUS_REFUSAL: Record<Exclude<InviteStatus, 'pending'>, string> = {
  used: INVITE_USED,
  revoked: INVITE_REVOKED,
  expired: INVITE_EXPIRED,
}

/** What an invite link names, for the accept page; null for a token that names nothing. */
export async function describeInvite(
  token: string,
  dbOrTx: DbOrTx = getDb(),
  now: Date = new Date(),
): Promise<{ teamName: string; email: string; role: TeamRole; status: InviteStatus } | null> {
  if (!token || token.length > 200) return null
  const row = await dbOrTx
    .selectFrom('team_invites as i')
    .innerJoin('teams as t', 't.id', 'i.team_id')
    .select(['t.name', 'i.email', 'i.role', 'i.accepted_at', 'i.revoked_at', 'i.expires_at'])
    .where('i.token_hash', '=', hashInviteToken(token))
    .executeTakeFirst()
  if (!row) return null
  return { teamName: row.name, email: row.email, role: row.role, status: inviteStatus(row, now) }
}

/** Accepts an invite as the signed-in user, who must hold the invited address. The link then stops working. */
export async function acceptInvite(userId: string, token: string, dbOrTx: DbOrTx = getDb(), now: Date = new Date()): Promise<{ teamId: string }> {
  if (!token || token.length > 200) throw new TeamError(404, INVITE_NOT_FOUND)
  return executeTx(dbOrTx, async (trx) => {
    const found = await trx.selectFrom('team_invites').select('team_id').where('token_hash', '=', hashInviteToken(token)).executeTakeFirst()
    if (!found) throw new TeamError(404, INVITE_NOT_FOUND)
    const team = await lockTeam(trx, found.team_id)
    const invite = await trx
      .selectFrom('team_invites')
      .select(['id', 'email', 'role', 'accepted_at', 'revoked_at', 'expires_at'])
      .where('token_hash', '=', hashInviteToken(token))
      .executeTakeFirstOrThrow()
    const status = inviteStatus(invite, now)
    if (status !== 'pending') throw new TeamError(410, STATUS_REFUSAL[status])
    const user = await trx.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow()
    if (normaliseEmail(user.email) !== invite.email) throw new TeamError(403, wrongAddress(invite.email))
    await trx.updateTable('team_invites').set({ accepted_at: now }).where('id', '=', invite.id).execute()
    if (await roleOf(trx, team.id, userId)) return { teamId: team.id }
    // The invite held its seat until now; an operator may have lowered the limit since.
    if (!acceptanceFits(await seatCounts(trx, team.id, now), team.seat_limit)) throw new TeamError(409, memberSeatsFull(team.seat_limit))
    await trx.insertInto('team_members').values({ team_id: team.id, user_id: userId, role: invite.role, monthly_cap: null }).execute()
    await recordAudit({ actor: { userId }, action: 'team.member.join', targetType: 'team', targetId: team.id, details: { userId, email: user.email, role: invite.role, inviteId: invite.id } }, trx)
    return { teamId: team.id }
  })
}

function checkCap(cap: number | null): number | null {
  if (cap === null) return null
  if (!Number.isSafeInteger(cap) || cap < 0 || cap > MAX_MONTHLY_CAP) {
    throw new TeamError(400, `A monthly cap is a whole number of credits from 0 to ${MAX_MONTHLY_CAP}, or none.`)
  }
  return cap
}

/**
 * Changes a member's role and/or monthly cap. Owners and admins change members and admins; only an
 * owner makes an owner or changes an owner; the last owner cannot be demoted.
 */
export async function changeMember(
  actorUserId: string,
  teamId: string,
  memberUserId: string,
  change: { role?: TeamRole; cap?: number | null },
  dbOrTx: DbOrTx = getDb(),
): Promise<void> {
  const cap = change.cap === undefined ? undefined : checkCap(change.cap)
  if (change.role !== undefined && !TEAM_ROLES.includes(change.role)) throw new TeamError(400, 'role must be owner, admin or member.')
  await executeTx(dbOrTx, async (trx) => {
    await lockTeam(trx, teamId)
    const actorRole = await requireManager(trx, teamId, actorUserId)
    const target = isUuid(memberUserId)
      ? await trx.selectFrom('team_members').select(['role', 'monthly_cap']).where('team_id', '=', teamId).where('user_id', '=', memberUserId).executeTakeFirst()
      : undefined
    if (!target) throw new TeamError(404, MEMBER_NOT_FOUND)
    const targetRole = target.role
    const touchesOwner = targetRole === 'owner' || change.role === 'owner'
    if (touchesOwner && actorRole !== 'owner') throw new TeamError(403, OWNERS_ONLY)
    if (targetRole === 'owner' && change.role !== undefined && change.role !== 'owner' && (await countOwners(trx, teamId)) <= 1) {
      throw new TeamError(409, LAST_OWNER)
    }
    const set: { role?: TeamRole; monthly_cap?: number | null } = {}
    if (change.role !== undefined) set.role = change.role
    if (cap !== undefined) set.monthly_cap = cap
    if (Object.keys(set).length === 0) return
    await trx.updateTable('team_members').set(set).where('team_id', '=', teamId).where('user_id', '=', memberUserId).execute()
    const withdrawn = set.role !== undefined ? await withdrawPowersBeyond(trx, teamId, memberUserId, set.role) : {}
    for (const entry of memberChangeEntries(actorUserId, teamId, memberUserId, set, target, withdrawn)) await recordAudit(entry, trx)
  })
}

/**
 * What a member made with powers their role (or none, once removed) no longer has, withdrawn at once
 * (decision 162): the team keys they created, when they no longer manage the team (a key is a bearer
 * secret they may still hold, and a team key manages the team's webhooks); the pending invites they
 * sent that their role could no longer send (all of them for a member or someone removed, owner
 * invites for an admin). Sessions need nothing: every request reads the role afresh. The ids go into
 * the audit entry of the change.
 */
async function withdrawPowersBeyond(trx: Trx, teamId: string, userId: string, role: TeamRole | null): Promise<{ revokedKeys: string[]; withdrawnInvites: string[] }> {
  const now = new Date()
  const keys =
    role !== null && managesTeam(role)
      ? []
      : await trx
          .updateTable('api_keys')
          .set({ revoked_at: now })
          .where('team_id', '=', teamId)
          .where('user_id', '=', userId)
          .where('revoked_at', 'is', null)
          .returning('id')
          .execute()
  const mayStillSend: TeamRole[] = role === 'owner' ? ['owner', 'admin', 'member'] : role === 'admin' ? ['admin', 'member'] : []
  let invites = trx
    .updateTable('team_invites')
    .set({ revoked_at: now })
    .where('team_id', '=', teamId)
    .where('invited_by', '=', userId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
  if (mayStillSend.length > 0) invites = invites.where('role', 'not in', mayStillSend)
  const withdrawn = await invites.returning('id').execute()
  return { revokedKeys: keys.map((k) => k.id), withdrawnInvites: withdrawn.map((i) => i.id) }
}

/**
 * Takes a member out at once: their sessions stop working as the team, the team keys they created
 * are revoked (decision 062) and the invites they sent withdrawn (decision 162). Jobs already charged
 * finish on the team's account; new runs resolve to the user's own account.
 */
async function dropMember(trx: Trx, teamId: string, userId: string): Promise<{ revokedKeys: string[]; withdrawnInvites: string[] }> {
  await trx.deleteFrom('team_members').where('team_id', '=', teamId).where('user_id', '=', userId).execute()
  await trx.updateTable('sessions').set({ working_team_id: null }).where('user_id', '=', userId).where('working_team_id', '=', teamId).execute()
  return withdrawPowersBeyond(trx, teamId, userId, null)
}

/** Owners remove anyone but the last owner; admins remove members and admins. Removing oneself is leaving. */
export async function removeMember(actorUserId: string, teamId: string, memberUserId: string, dbOrTx: DbOrTx = getDb()): Promise<void> {
  if (actorUserId === memberUserId) return leaveTeam(actorUserId, teamId, dbOrTx)
  await executeTx(dbOrTx, async (trx) => {
    await lockTeam(trx, teamId)
    const actorRole = await requireManager(trx, teamId, actorUserId)
    const targetRole = isUuid(memberUserId) ? await roleOf(trx, teamId, memberUserId) : null
    if (!targetRole) throw new TeamError(404, MEMBER_NOT_FOUND)
    if (targetRole === 'owner' && actorRole !== 'owner') throw new TeamError(403, OWNERS_ONLY)
    if (targetRole === 'owner' && (await countOwners(trx, teamId)) <= 1) throw new TeamError(409, LAST_OWNER)
    const withdrawn = await dropMember(trx, teamId, memberUserId)
    await recordAudit({ actor: { userId: actorUserId }, action: 'team.member.remove', targetType: 'team', targetId: teamId, details: { userId: memberUserId, role: targetRole, ...withdrawn } }, trx)
  })
}

/** A member leaves; the last owner cannot (409). */
export async function leaveTeam(userId: string, teamId: string, dbOrTx: DbOrTx = getDb()): Promise<void> {
  await executeTx(dbOrTx, async (trx) => {
    await lockTeam(trx, teamId)
    const role = await requireRole(trx, teamId, userId)
    if (role === 'owner' && (await countOwners(trx, teamId)) <= 1) throw new TeamError(409, LAST_OWNER)
    const withdrawn = await dropMember(trx, teamId, userId)
    await recordAudit({ actor: { userId }, action: 'team.member.leave', targetType: 'team', targetId: teamId, details: { userId, role, ...withdrawn } }, trx)
  })
}

export interface TeamRef {
  id: string
  name: string
}

/** The last owner of a team others are still in: the team needs another owner before this one goes. */
function holdsTeamAlone(role: TeamRole, others: Array<{ role: TeamRole }>): boolean {
  return role === 'owner' && others.length > 0 && !others.some((m) => m.role === 'owner')
}

/** The teams whose last owner `userId` is while others are still in them (what an account deletion waits for). */
export async function teamsHeldAsLastOwner(userId: string, db: DbOrTx = getDb()): Promise<TeamRef[]> {
  const rows = await db
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .innerJoin('team_members as o', 'o.team_id', 'm.team_id')
    .select(['t.id', 't.name', 'm.role', 'o.user_id as other_id', 'o.role as other_role'])
    .where('m.user_id', '=', userId)
    .orderBy('t.id')
    .execute()
  const teams = new Map<string, { ref: TeamRef; role: TeamRole; others: Array<{ role: TeamRole }> }>()
  for (const row of rows) {
    const team = teams.get(row.id) ?? { ref: { id: row.id, name: row.name }, role: row.role, others: [] }
    if (row.other_id !== userId) team.others.push({ role: row.other_role })
    teams.set(row.id, team)
  }
  return [...teams.values()].filter((t) => holdsTeamAlone(t.role, t.others)).map((t) => t.ref)
}

/**
 * Takes a user whose account is being deleted out of every team (decision 171), in the caller's
 * transaction. Each team is locked first, in id order (two deletions never wait on each other in a
 * circle). A team they are the last owner of while others are still in it is not touched and comes
 * back in `blocking`: the caller refuses the deletion, and the team needs another owner first. A team
 * they are the only member of closes with them: every key of it revoked, every pending invite
 * withdrawn, its webhooks removed; its ledger and balance stay for the books. From every other team
 * they leave as leaveTeam does (their team keys revoked, their pending invites withdrawn).
 */
export async function departAllTeams(userId: string, trx: Trx): Promise<{ blocking: TeamRef[]; left: TeamRef[]; closed: TeamRef[] }> {
  const memberships = await trx
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select(['t.id', 't.name'])
    .where('m.user_id', '=', userId)
    .orderBy('t.id')
    .execute()
  const blocking: TeamRef[] = []
  const left: TeamRef[] = []
  const closed: TeamRef[] = []
  for (const team of memberships) {
    await lockTeam(trx, team.id)
    const members = await trx.selectFrom('team_members').select(['user_id', 'role']).where('team_id', '=', team.id).execute()
    const own = members.find((m) => m.user_id === userId)
    if (!own) continue
    const others = members.filter((m) => m.user_id !== userId)
    if (holdsTeamAlone(own.role, others)) {
      blocking.push(team)
      continue
    }
    const withdrawn = await dropMember(trx, team.id, userId)
    if (others.length === 0) {
      await closeTeam(trx, team.id)
      closed.push(team)
    } else {
      left.push(team)
    }
    const details = { userId, role: own.role, reason: 'account_deleted', closed: others.length === 0, ...withdrawn }
    await recordAudit({ actor: { userId }, action: 'team.member.leave', targetType: 'team', targetId: team.id, details }, trx)
  }
  return { blocking, left, closed }
}

/** A team left without members: nothing of it can act any more (its ledger stays, as every ledger does). */
async function closeTeam(trx: Trx, teamId: string): Promise<void> {
  const now = new Date()
  await trx.updateTable('api_keys').set({ revoked_at: now }).where('team_id', '=', teamId).where('revoked_at', 'is', null).execute()
  await trx.updateTable('team_invites').set({ revoked_at: now }).where('team_id', '=', teamId).where('accepted_at', 'is', null).where('revoked_at', 'is', null).execute()
  await trx.deleteFrom('webhook_endpoints').where('account_id', 'in', (eb) => eb.selectFrom('credit_accounts').select('id').where('team_id', '=', teamId)).execute()
}

/** The team a browser session works as; null for the user's own balance. 404 when not a member. */
export async function setWorkingTeam(sessionId: string, userId: string, teamId: string | null, dbOrTx: DbOrTx = getDb()): Promise<void> {
  if (teamId !== null) await requireRole(dbOrTx, teamId, userId)
  await dbOrTx.updateTable('sessions').set({ working_team_id: teamId }).where('id', '=', sessionId).where('user_id', '=', userId).execute()
}
