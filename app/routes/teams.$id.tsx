// /teams/<id>: one team's page. The loader reads the domain's view (what the viewer may see follows
// their role: owners and admins see everyone, a member their own share) and the activity; the action
// validates one form (by its `intent`) and calls one domain function. A refusal (TeamError) is shown
// on the form that caused it, with its status; a form that worked redirects back with a notice.
// Not a member (or no such team): 404, the same answer for both.
import { parseWithZod } from '@conform-to/zod/v4'
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { listTeamApiKeys } from '~/features/api-keys/keys.server'
import { createKeyFor, revokeKeyFor } from '~/features/account/keys.server'
import { publicKey } from '~/features/api-keys/keys.server'
import { requireUser } from '~/features/account/guards.server'
import { invalidReply, redirectWithNotice, takeNotice, teamErrorReply, type TeamFormReply } from '~/features/teams/team-forms.server'
import { changeMember, getTeamView, inviteMember, leaveTeam, removeMember, revokeInvite, teamActivity, TeamError } from '~/features/teams/teams.server'
import {
  capFormSchema,
  inviteFormSchema,
  inviteIdFormSchema,
  keyIdFormSchema,
  leaveFormSchema,
  memberFormSchema,
  ROLE_LABELS,
  roleFormSchema,
  teamKeyFormSchema,
} from '~/features/teams/ui/forms'
import { managesTeam } from '~/features/teams/roles'
import { transferFormSchema } from '~/features/teams/transfer'
import { moveCreditsToTeam, transferAllowance } from '~/features/teams/transfer.server'
import { TransferSection } from '~/features/teams/ui/transfer-form'
import { Notice } from '~/features/teams/ui/parts'
import {
  ActivitySection,
  InvitesSection,
  KeysAndLeave,
  MembersSection,
  TeamFigures,
  type NewTeamKey,
  type TeamActivityRow,
  type TeamKeyRow,
  type TeamPageView,
} from '~/features/teams/ui/team-sections'

const TEAM_ACTIVITY_LIMIT = 20

export const meta: MetaFunction<typeof loader> = ({ data: loaded }) => [
  { title: `${loaded?.team.name ?? 'Team'} · Facet Studio` },
  { name: 'robots', content: 'noindex, nofollow' },
]

/** The domain's 404 (not a member, or no such team) is the page's 404. */
async function orNotFound<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (error instanceof TeamError && error.status === 404) throw new Response('Not found', { status: 404 })
    throw error
  }
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user } = await requireUser(request)
  const teamId = params.id ?? ''
  const view = await orNotFound(getTeamView(teamId, user.id))
  const activity = await orNotFound(teamActivity(teamId, user.id, { limit: TEAM_ACTIVITY_LIMIT }))
  const team: TeamPageView = {
    ...view,
    invites: view.invites.map((invite) => ({ ...invite, expiresAt: invite.expiresAt.toISOString() })),
  }
  const rows: TeamActivityRow[] = activity.map((entry) => ({ ...entry, at: entry.at.toISOString() }))
  // The team's keys, for the owners and admins who manage them (as GET /api/teams/<id>/ has them).
  const keys: TeamKeyRow[] = managesTeam(view.viewerRole) ? (await listTeamApiKeys(view.id)).map(publicKey) : []
  const own = await transferAllowance(user.id)
  const { notice, headers } = await takeNotice(request)
  return data({ team, activity: rows, keys, own, viewerUserId: user.id, notice }, { headers })
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { user } = await requireUser(request)
  const teamId = params.id ?? ''
  const here = `/teams/${teamId}`
  const form = await request.formData()
  const intent = form.get('intent')

  switch (intent) {
    case 'invite': {
      const submission = parseWithZod(form, { schema: inviteFormSchema })
      if (submission.status !== 'success') return invalidReply('invite', submission)
      try {
        await inviteMember(user.id, teamId, submission.value)
        return redirectWithNotice(here, 'invited')
      } catch (error) {
        return teamErrorReply('invite', submission, error)
      }
    }
    case 'revoke-invite': {
      const submission = parseWithZod(form, { schema: inviteIdFormSchema })
      const id = `revoke-${String(form.get('invite') ?? '')}`
      if (submission.status !== 'success') return invalidReply(id, submission)
      try {
        await revokeInvite(user.id, teamId, submission.value.invite)
        return redirectWithNotice(here, 'revoked')
      } catch (error) {
        return teamErrorReply(id, submission, error)
      }
    }
    case 'change-role': {
      const submission = parseWithZod(form, { schema: roleFormSchema })
      const id = `role-${String(form.get('member') ?? '')}`
      if (submission.status !== 'success') return invalidReply(id, submission)
      try {
        await changeMember(user.id, teamId, submission.value.member, { role: submission.value.role })
        return redirectWithNotice(here, 'role-changed')
      } catch (error) {
        return teamErrorReply(id, submission, error)
      }
    }
    case 'set-cap': {
      const submission = parseWithZod(form, { schema: capFormSchema })
      const id = `cap-${String(form.get('member') ?? '')}`
      if (submission.status !== 'success') return invalidReply(id, submission)
      const cap = submission.value.cap ?? null
      try {
        await changeMember(user.id, teamId, submission.value.member, { cap })
        return redirectWithNotice(here, cap === null ? 'cap-cleared' : 'cap-set')
      } catch (error) {
        return teamErrorReply(id, submission, error)
      }
    }
    case 'remove': {
      const submission = parseWithZod(form, { schema: memberFormSchema })
      const id = `remove-${String(form.get('member') ?? '')}`
      if (submission.status !== 'success') return invalidReply(id, submission)
      try {
        await removeMember(user.id, teamId, submission.value.member)
        return redirectWithNotice(here, 'removed')
      } catch (error) {
        return teamErrorReply(id, submission, error)
      }
    }
    case 'create-key': {
      // The new key is in this answer only (never in a URL): shown once, like the dashboard's.
      const submission = parseWithZod(form, { schema: teamKeyFormSchema })
      if (submission.status !== 'success') return invalidReply('create-key', submission)
      const made = await createKeyFor({ kind: 'user' }, user, { ...submission.value, team_id: teamId })
      if (!made.ok) return data<TeamFormReply>({ form: 'create-key', result: submission.reply({ formErrors: [made.message] }) }, { status: made.status })
      const created: NewTeamKey = { name: made.key.name, environment: made.key.environment, key: made.key.key }
      return data({ form: 'create-key', result: submission.reply({ resetForm: true }), created }, { status: 201, headers: { 'Cache-Control': 'no-store' } })
    }
    case 'revoke-key': {
      const submission = parseWithZod(form, { schema: keyIdFormSchema })
      const id = `revoke-key-${String(form.get('key') ?? '')}`
      if (submission.status !== 'success') return invalidReply(id, submission)
      const revoked = await revokeKeyFor({ kind: 'user' }, user, submission.value.key)
      if (!revoked.ok) return data<TeamFormReply>({ form: id, result: submission.reply({ formErrors: [revoked.message] }) }, { status: revoked.status })
      return redirectWithNotice(here, 'key-revoked')
    }
    case 'transfer': {
      const submission = parseWithZod(form, { schema: transferFormSchema })
      if (submission.status !== 'success') return invalidReply('transfer', submission)
      try {
        await moveCreditsToTeam(user.id, teamId, submission.value.amount)
        return redirectWithNotice(here, 'transferred')
      } catch (error) {
        return teamErrorReply('transfer', submission, error)
      }
    }
    case 'leave': {
      const submission = parseWithZod(form, { schema: leaveFormSchema })
      try {
        await leaveTeam(user.id, teamId)
        return redirectWithNotice('/teams', 'left')
      } catch (error) {
        return teamErrorReply('leave', submission, error)
      }
    }
    default:
      throw new Response('Unknown form', { status: 400 })
  }
}

export default function TeamPage() {
  const { team, activity, keys, own, viewerUserId, notice } = useLoaderData<typeof loader>()
  const manager = managesTeam(team.viewerRole)
  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-10 sm:px-6">
      <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">
        <Link to="/teams" className="underline-offset-2 hover:underline">
          Teams
        </Link>
      </p>
      <div className="mt-1 flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="min-w-0 text-3xl font-bold tracking-tight text-slate-900 [overflow-wrap:anywhere]">{team.name}</h1>
        <p className="text-sm text-slate-600">
          Your role: <span className="font-semibold text-slate-900">{ROLE_LABELS[team.viewerRole]}</span>
        </p>
      </div>
      <Notice text={notice} />
      <TeamFigures team={team} />

      {/* On a phone: members, invite, keys, then activity; on a wide screen the invite and keys
          panels make the right-hand column. */}
      <div className="mt-8 grid gap-x-6 gap-y-8 lg:grid-cols-[3fr_2fr]">
        <div className="min-w-0 lg:col-start-1 lg:row-start-1">
          <MembersSection team={team} viewerUserId={viewerUserId} />
        </div>
        <div className="min-w-0 space-y-6 lg:col-start-2 lg:row-span-2 lg:row-start-1">
          <TransferSection teamName={team.name} own={own} />
          <InvitesSection team={team} />
          <KeysAndLeave team={team} keys={keys} />
        </div>
        <div className="min-w-0 lg:col-start-1 lg:row-start-2">
          <ActivitySection activity={activity} manager={manager} />
        </div>
      </div>
    </div>
  )
}
