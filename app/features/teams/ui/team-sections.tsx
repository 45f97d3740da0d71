// The sections of a team page (/teams/<id>): figures, members (with role, cap and removal forms for
// owners and admins), invites, activity, API keys and leaving. Every form is a plain POST to the page
// (it works without JavaScript) with an `intent`; conform + zod check it in the browser once it runs.
// Which controls appear follows the viewer's role, but the rules are the domain's: a refused form
// shows the domain's message.
import { getFormProps, getInputProps, getSelectProps } from '@conform-to/react'
import { Form, Link, useActionData, useNavigation } from '@remix-run/react'
import type { ReactNode } from 'react'
import { KEY_CREATED } from '~/features/api-keys/messages'
import { API_KEY_NAME_MAX } from '~/features/api-keys/limits'
import { formatActivityDate, formatCredits } from '~/features/credits/display'
import { TOOL_LIST } from '~/catalog/tools'
import { buttonClass, inputClass } from '~/ui/button'
import { Field } from '~/ui/field'
import {
  capFormSchema,
  inviteFormSchema,
  inviteIdFormSchema,
  keyIdFormSchema,
  leaveFormSchema,
  memberFormSchema,
  ROLE_LABELS,
  roleFormSchema,
  TEAM_ROLES,
  teamKeyFormSchema,
  type TeamRoleOption,
} from './forms'
import { SEAT_RULE } from '../messages'
import { managesTeam } from '../roles'
import { FormError, RoleBadge } from './parts'
import { useTeamForm } from './use-team-form'

export interface TeamMemberRow {
  userId: string
  email: string
  name: string | null
  role: TeamRoleOption
  spentThisMonth: number
  cap: number | null
}

export interface TeamPageView {
  id: string
  name: string
  balance: number
  seats: { used: number; limit: number }
  viewerRole: TeamRoleOption
  spentThisMonth: number
  members: TeamMemberRow[]
  invites: { id: string; email: string; role: TeamRoleOption; expiresAt: string }[]
}

export interface TeamKeyRow {
  id: string
  name: string
  environment: 'live' | 'test'
  prefix: string
  last_used_at: string | null
  runs_30d: number
  credits_30d: number
}

/** The key a create-key form just made: in the action's answer only, shown once. */
export interface NewTeamKey {
  name: string
  environment: 'live' | 'test'
  key: string
}

export interface TeamActivityRow {
  id: string
  at: string
  email: string
  tool: string | null
  credits: number
  description: string | null
}

const smallButton = (variant: 'primary' | 'secondary' | 'ghost') => buttonClass(variant, 'shrink-0 whitespace-nowrap px-3.5 py-1.5')
const selectClass = `${inputClass} min-w-0 flex-1 sm:w-auto sm:flex-none`

function useBusy(intent: string, key?: string) {
  const navigation = useNavigation()
  const form = navigation.formData
  return navigation.state === 'submitting' && form?.get('intent') === intent && (key === undefined || form.get('member') === key || form.get('invite') === key)
}

function Stat({ label, value, detail, testId }: { label: string; value: string; detail?: ReactNode; testId: string }) {
  return (
    <div className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm" data-testid={testId}>
      <p className="text-sm font-medium text-slate-600">{label}</p>
      <p className="mt-2 text-2xl font-bold tabular-nums text-slate-900">{value}</p>
      {detail ? <div className="mt-1 text-sm text-slate-600">{detail}</div> : null}
    </div>
  )
}

export function TeamFigures({ team }: { team: TeamPageView }) {
  const manager = managesTeam(team.viewerRole)
  return (
    <section aria-label="Team figures" className="mt-8 grid gap-4 sm:grid-cols-3">
      <Stat label="Team balance" value={formatCredits(team.balance)} detail="Shared by every member" testId="team-balance" />
      <Stat
        label="Seats"
        value={`${team.seats.used.toLocaleString('en-US')} of ${team.seats.limit.toLocaleString('en-US')}`}
        detail="Members and pending invites"
        testId="team-seats"
      />
      <Stat
        label={manager ? 'Team spent this month' : 'You spent this month'}
        value={formatCredits(team.spentThisMonth)}
        detail="Since the 1st, UTC"
        testId="team-spent"
      />
    </section>
  )
}

function memberLabel(member: TeamMemberRow) {
  return member.name ? `${member.name} (${member.email})` : member.email
}

function RoleForm({ member, viewerRole }: { member: TeamMemberRow; viewerRole: TeamRoleOption }) {
  const [form, fields] = useTeamForm(`role-${member.userId}`, roleFormSchema)
  const busy = useBusy('change-role', member.userId)
  // Only an owner makes or changes owners: an admin is not offered what the domain would refuse.
  const roles = viewerRole === 'owner' ? TEAM_ROLES : TEAM_ROLES.filter((r) => r !== 'owner')
  const selectProps = getSelectProps(fields.role)
  return (
    <Form method="post" {...getFormProps(form)} className="min-w-0">
      <input type="hidden" name="intent" value="change-role" />
      <input type="hidden" name="member" value={member.userId} />
      <label htmlFor={fields.role.id} className="block text-sm font-medium text-slate-800">
        Role<span className="sr-only"> of {member.email}</span>
      </label>
      <div className="mt-1.5 flex gap-2">
        <select {...selectProps} key={selectProps.key} defaultValue={fields.role.initialValue ?? member.role} className={selectClass}>
          {roles.map((role) => (
            <option key={role} value={role}>
              {ROLE_LABELS[role]}
            </option>
          ))}
        </select>
        <button type="submit" className={smallButton('secondary')} disabled={busy}>
          {busy ? 'Saving...' : 'Save role'}
        </button>
      </div>
      <div className="mt-2">
        <FormError errors={form.errors ?? fields.role.errors} />
      </div>
    </Form>
  )
}

function CapForm({ member }: { member: TeamMemberRow }) {
  const [form, fields] = useTeamForm(`cap-${member.userId}`, capFormSchema)
  const busy = useBusy('set-cap', member.userId)
  const capProps = getInputProps(fields.cap, { type: 'number' })
  const hintId = `${fields.cap.id}-hint`
  return (
    <Form method="post" {...getFormProps(form)} className="min-w-0">
      <input type="hidden" name="intent" value="set-cap" />
      <input type="hidden" name="member" value={member.userId} />
      <label htmlFor={fields.cap.id} className="block text-sm font-medium text-slate-800">
        Monthly cap<span className="sr-only"> for {member.email}</span>
      </label>
      <div className="mt-1.5 flex gap-2">
        <input
          {...capProps}
          key={capProps.key}
          defaultValue={typeof fields.cap.initialValue === 'string' ? fields.cap.initialValue : member.cap === null ? '' : String(member.cap)}
          min={0}
          step={1}
          inputMode="numeric"
          placeholder="No cap"
          aria-describedby={[hintId, capProps['aria-describedby']].filter(Boolean).join(' ')}
          className={`${inputClass} min-w-0 flex-1 sm:w-32 sm:flex-none`}
        />
        <button type="submit" className={smallButton('secondary')} disabled={busy}>
          {busy ? 'Saving...' : 'Save cap'}
        </button>
      </div>
      <p id={hintId} className="mt-1 text-xs text-slate-600">
        Credits per calendar month (UTC). Leave empty for no cap.
      </p>
      <div className="mt-2">
        <FormError errors={form.errors ?? fields.cap.errors} />
      </div>
    </Form>
  )
}

function RemoveForm({ member }: { member: TeamMemberRow }) {
  const [form] = useTeamForm(`remove-${member.userId}`, memberFormSchema)
  const busy = useBusy('remove', member.userId)
  // A <details> asks for the confirmation without JavaScript and without a round trip.
  return (
    <details className="group" open={form.errors ? true : undefined}>
      <summary className="inline-block cursor-pointer list-none rounded text-sm font-medium text-red-700 underline [&::-webkit-details-marker]:hidden">
        Remove {member.email}
      </summary>
      <Form method="post" {...getFormProps(form)} className="mt-2 rounded-xl bg-red-50 p-3">
        <input type="hidden" name="intent" value="remove" />
        <input type="hidden" name="member" value={member.userId} />
        <p className="text-sm text-red-900">
          {member.email} loses access to the team's credits, results and keys at once. Runs already started finish and are charged to the team.
        </p>
        <FormError errors={form.errors} />
        <button type="submit" className={buttonClass('primary', 'mt-2 bg-red-700 px-3.5 py-1.5 hover:bg-red-800')} disabled={busy}>
          {busy ? 'Removing...' : `Yes, remove ${member.email}`}
        </button>
      </Form>
    </details>
  )
}

function SpendLine({ member }: { member: TeamMemberRow }) {
  const capText = member.cap === null ? 'no monthly cap' : `cap ${formatCredits(member.cap)}`
  const percent = member.cap ? Math.min(100, Math.round((member.spentThisMonth / member.cap) * 100)) : null
  return (
    <div className="mt-1">
      <p className="text-sm text-slate-700">
        Spent this month: <span className="font-semibold tabular-nums">{formatCredits(member.spentThisMonth)}</span> · {capText}
      </p>
      {percent !== null ? (
        <div
          className="mt-1.5 h-1.5 max-w-xs overflow-hidden rounded-full bg-slate-100"
          role="progressbar"
          aria-label={`Share of ${member.email}'s monthly cap spent`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
        >
          <div className={`h-full rounded-full ${percent >= 100 ? 'bg-red-600' : 'bg-indigo-600'}`} style={{ width: `${percent}%` }} />
        </div>
      ) : null}
    </div>
  )
}

export function MembersSection({ team, viewerUserId }: { team: TeamPageView; viewerUserId: string }) {
  const manager = managesTeam(team.viewerRole)
  return (
    <section aria-labelledby="team-members" className="min-w-0">
      <h2 id="team-members" className="mb-3 text-lg font-semibold text-slate-900">
        {manager ? 'Members' : 'Your share'}
      </h2>
      <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white" data-testid="team-members">
        {team.members.map((member) => {
          const self = member.userId === viewerUserId
          // An admin does not change owners; nobody removes themselves here (that is leaving).
          const editable = manager && (team.viewerRole === 'owner' || member.role !== 'owner')
          return (
            <li key={member.userId} className="px-4 py-4" data-testid="team-member">
              <div className="flex flex-wrap items-center justify-between gap-2">
                <p className="min-w-0 font-semibold text-slate-900 [overflow-wrap:anywhere]">
                  {memberLabel(member)}
                  {self ? <span className="ml-1 font-normal text-slate-600">(you)</span> : null}
                </p>
                <RoleBadge role={member.role} />
              </div>
              <SpendLine member={member} />
              {editable ? (
                <div className="mt-3 grid gap-3 md:grid-cols-2">
                  <RoleForm member={member} viewerRole={team.viewerRole} />
                  <CapForm member={member} />
                </div>
              ) : null}
              {editable && !self ? (
                <div className="mt-3">
                  <RemoveForm member={member} />
                </div>
              ) : null}
            </li>
          )
        })}
      </ul>
    </section>
  )
}

function InviteForm({ viewerRole, seatsFull }: { viewerRole: TeamRoleOption; seatsFull: boolean }) {
  const [form, fields] = useTeamForm('invite', inviteFormSchema)
  const busy = useBusy('invite')
  const roles = viewerRole === 'owner' ? TEAM_ROLES : TEAM_ROLES.filter((r) => r !== 'owner')
  const emailProps = getInputProps(fields.email, { type: 'email' })
  const roleProps = getSelectProps(fields.role)
  return (
    <Form method="post" {...getFormProps(form)} className="space-y-3">
      <input type="hidden" name="intent" value="invite" />
      <FormError errors={form.errors} />
      <Field label="Email address" htmlFor={fields.email.id} errorId={fields.email.errorId} errors={fields.email.errors}>
        <input {...emailProps} key={emailProps.key} autoComplete="off" placeholder="designer@example.com" className={inputClass} />
      </Field>
      <Field label="Role" htmlFor={fields.role.id} errorId={fields.role.errorId} errors={fields.role.errors}>
        <select {...roleProps} key={roleProps.key} defaultValue={fields.role.initialValue ?? 'member'} className={inputClass}>
          {roles.map((role) => (
            <option key={role} value={role}>
              {ROLE_LABELS[role]}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" className={buttonClass('primary')} disabled={busy}>
        {busy ? 'Sending...' : 'Send invite'}
      </button>
      {seatsFull ? <p className="text-sm text-amber-800">Every seat is taken: remove a member or revoke an invite first.</p> : null}
      <p className="text-sm text-slate-600" data-testid="seat-rule">
        {SEAT_RULE}
      </p>
    </Form>
  )
}

function RevokeInviteForm({ invite }: { invite: TeamPageView['invites'][number] }) {
  const [form] = useTeamForm(`revoke-${invite.id}`, inviteIdFormSchema)
  const busy = useBusy('revoke-invite', invite.id)
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="revoke-invite" />
      <input type="hidden" name="invite" value={invite.id} />
      <button type="submit" className={smallButton('secondary')} disabled={busy} aria-label={`Revoke the invite for ${invite.email}`}>
        {busy ? 'Revoking...' : 'Revoke'}
      </button>
      <FormError errors={form.errors} />
    </Form>
  )
}

export function InvitesSection({ team }: { team: TeamPageView }) {
  if (!managesTeam(team.viewerRole)) return null
  return (
    <section aria-labelledby="team-invite" className="min-w-0 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="team-invite" className="mb-3 text-lg font-semibold text-slate-900">
        Invite someone
      </h2>
      <InviteForm viewerRole={team.viewerRole} seatsFull={team.seats.used >= team.seats.limit} />
      <h3 className="mt-6 text-base font-semibold text-slate-900">Pending invites</h3>
      {team.invites.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600">No pending invites.</p>
      ) : (
        <ul className="mt-2 divide-y divide-slate-100" data-testid="team-invites">
          {team.invites.map((invite) => (
            <li key={invite.id} className="flex flex-wrap items-center justify-between gap-2 py-3">
              <div className="min-w-0">
                <p className="font-medium text-slate-900 [overflow-wrap:anywhere]">{invite.email}</p>
                <p className="text-sm text-slate-600">
                  {ROLE_LABELS[invite.role]} · expires <time dateTime={invite.expiresAt}>{formatActivityDate(invite.expiresAt)}</time>
                </p>
              </div>
              <RevokeInviteForm invite={invite} />
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

const TOOL_NAMES = new Map(TOOL_LIST.flatMap((tool) => [[tool.ledgerSlug, tool.name] as const, [tool.slug, tool.name] as const]))

/** The tool's name for a ledger slug, or the slug with spaces for one this build does not know. */
export function toolName(slug: string | null): string | null {
  if (!slug) return null
  return TOOL_NAMES.get(slug) ?? slug.replace(/[_-]/g, ' ')
}

/** Activity credits are signed ledger deltas: a run is negative, its refund positive. */
function creditsText(credits: number) {
  const amount = formatCredits(Math.abs(credits))
  if (credits < 0) return `\u2212${amount}`
  if (credits > 0) return `+${amount}`
  return amount
}

export function ActivitySection({ activity, manager }: { activity: TeamActivityRow[]; manager: boolean }) {
  return (
    <section aria-labelledby="team-activity" className="min-w-0">
      <h2 id="team-activity" className="mb-3 text-lg font-semibold text-slate-900">
        {manager ? 'Activity' : 'Your activity'}
      </h2>
      {activity.length === 0 ? (
        <p className="rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-600">
          No runs on the team's credits yet.
        </p>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white" data-testid="team-activity-list">
          {activity.map((entry) => {
            const tool = toolName(entry.tool)
            // A run's ledger description often repeats the tool's name: say it once.
            const description = entry.description && entry.description.toLowerCase() !== tool?.toLowerCase() ? entry.description : null
            const what = [tool, description].filter(Boolean).join(' · ') || 'Credits'
            return (
              <li key={entry.id} className="flex items-center justify-between gap-3 px-4 py-3">
                <div className="min-w-0">
                  <p className="text-sm font-semibold text-slate-900 [overflow-wrap:anywhere]">{what}</p>
                  <p className="text-sm text-slate-600 [overflow-wrap:anywhere]">{entry.email || 'By an operator'}</p>
                  <p className="text-xs text-slate-500">
                    <time dateTime={entry.at}>{formatActivityDate(entry.at)}</time>
                  </p>
                </div>
                <span className={`shrink-0 text-sm font-semibold tabular-nums ${entry.credits > 0 ? 'text-emerald-700' : 'text-slate-900'}`}>
                  {creditsText(entry.credits)}
                </span>
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}

function RevokeKeyForm({ apiKey }: { apiKey: TeamKeyRow }) {
  const [form] = useTeamForm(`revoke-key-${apiKey.id}`, keyIdFormSchema)
  return (
    <Form method="post" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="revoke-key" />
      <input type="hidden" name="key" value={apiKey.id} />
      <button type="submit" className="text-sm font-medium text-red-700 underline" aria-label={`Revoke ${apiKey.name}`}>
        Revoke
      </button>
      <FormError errors={form.errors} />
    </Form>
  )
}

function TeamKeys({ keys }: { keys: TeamKeyRow[] }) {
  const [form, fields] = useTeamForm('create-key', teamKeyFormSchema)
  const created = (useActionData() as { created?: NewTeamKey } | undefined)?.created
  const busy = useBusy('create-key')
  const nameProps = getInputProps(fields.name, { type: 'text' })
  const environmentProps = getSelectProps(fields.environment)
  return (
    <div className="mt-3">
      {created ? (
        <div className="mb-4 rounded-xl border border-emerald-300 bg-emerald-50 p-3" role="status" data-testid="new-team-key">
          <p className="text-sm font-medium text-emerald-900">{KEY_CREATED}</p>
          <label htmlFor="new-team-key-value" className="mt-2 block text-sm font-medium text-slate-800">
            API key “{created.name}” ({created.environment})
          </label>
          <input id="new-team-key-value" readOnly value={created.key} className={`${inputClass} mt-1 font-mono`} onFocus={(e) => e.currentTarget.select()} />
        </div>
      ) : null}
      {keys.length === 0 ? (
        <p className="text-sm text-slate-600">No team keys yet.</p>
      ) : (
        <ul className="divide-y divide-slate-100" data-testid="team-keys">
          {keys.map((apiKey) => (
            <li key={apiKey.id} className="flex flex-wrap items-start justify-between gap-2 py-2">
              <div className="min-w-0">
                <p className="font-medium text-slate-900 [overflow-wrap:anywhere]">
                  {apiKey.name} <span className="text-xs font-semibold uppercase text-slate-600">{apiKey.environment}</span>
                </p>
                <p className="font-mono text-xs text-slate-600">{apiKey.prefix}…</p>
                <p className="text-xs text-slate-600">
                  Last 30 days: {apiKey.runs_30d.toLocaleString('en-US')} {apiKey.runs_30d === 1 ? 'run' : 'runs'}, {formatCredits(apiKey.credits_30d)}
                </p>
              </div>
              <RevokeKeyForm apiKey={apiKey} />
            </li>
          ))}
        </ul>
      )}
      <Form method="post" {...getFormProps(form)} className="mt-3 space-y-3">
        <input type="hidden" name="intent" value="create-key" />
        <FormError errors={form.errors} />
        <div className="grid gap-3 sm:grid-cols-[1fr_auto]">
          <div className="min-w-0">
            <Field label="Key name" htmlFor={fields.name.id} errorId={fields.name.errorId} errors={fields.name.errors}>
              <input {...nameProps} key={nameProps.key} maxLength={API_KEY_NAME_MAX} placeholder="e.g. Agency sync" className={inputClass} />
            </Field>
          </div>
          <Field label="Environment" htmlFor={fields.environment.id} errorId={fields.environment.errorId} errors={fields.environment.errors}>
            <select {...environmentProps} key={environmentProps.key} defaultValue={fields.environment.initialValue ?? 'test'} className={inputClass}>
              <option value="test">Test (no credits spent)</option>
              <option value="live">Live</option>
            </select>
          </Field>
        </div>
        <button type="submit" className={smallButton('secondary')} disabled={busy}>
          {busy ? 'Creating...' : 'Create team key'}
        </button>
      </Form>
    </div>
  )
}

export function KeysAndLeave({ team, keys }: { team: TeamPageView; keys: TeamKeyRow[] }) {
  const [form] = useTeamForm('leave', leaveFormSchema)
  const busy = useBusy('leave')
  return (
    <section aria-labelledby="team-more" className="min-w-0 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="team-more" className="text-lg font-semibold text-slate-900">
        Keys and membership
      </h2>
      {managesTeam(team.viewerRole) ? (
        <>
          <p className="mt-2 text-sm text-slate-600">
            Team API keys always charge the team, whoever runs them. How to call the API:{' '}
            <Link to="/api" className="font-medium text-indigo-700 underline">
              API documentation
            </Link>
            .
          </p>
          <TeamKeys keys={keys} />
        </>
      ) : (
        <p className="mt-2 text-sm text-slate-600">To spend the team’s credits on the tools, open your credits in the header and choose the team under “Working as”.</p>
      )}
      <details className="mt-4" open={form.errors ? true : undefined}>
        <summary className="inline-block cursor-pointer list-none rounded text-sm font-medium text-red-700 underline [&::-webkit-details-marker]:hidden">
          Leave {team.name}
        </summary>
        <Form method="post" {...getFormProps(form)} className="mt-2 rounded-xl bg-red-50 p-3">
          <input type="hidden" name="intent" value="leave" />
          <p className="text-sm text-red-900">
            You lose access to the team’s credits, results and keys at once.
          </p>
          <FormError errors={form.errors} />
          <button type="submit" className={buttonClass('primary', 'mt-2 bg-red-700 px-3.5 py-1.5 hover:bg-red-800')} disabled={busy}>
            {busy ? 'Leaving...' : 'Yes, leave the team'}
          </button>
        </Form>
      </details>
    </section>
  )
}
