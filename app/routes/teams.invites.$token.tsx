// /teams/invites/<token>: the page a mailed invite links to. It names the team and the role; a
// signed-out visitor is sent to sign in or create an account with the invited address (with `from`
// back here: a new account's verification link keeps it, decision 076); someone signed in as that
// address accepts with a POST and lands on the team page. An
// expired, used or revoked invite answers 410 with a plain message; an unknown token 404. The rules
// (which address, which state) are the domain's: describeInvite and acceptInvite.
import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData, useNavigation } from '@remix-run/react'
import { requireUser } from '~/features/account/guards.server'
import { getAuthentication } from '~/features/account/authentication.server'
import { invalidReply, redirectWithNotice, teamErrorReply } from '~/features/teams/team-forms.server'
import { INVITE_EXPIRED, INVITE_NEW_ACCOUNT_NOTE, INVITE_REVOKED, INVITE_USED, wrongAddress } from '~/features/teams/messages'
import { joinTeam } from '~/features/teams/join.server'
import { describeInvite } from '~/features/teams/teams.server'
import { acceptFormSchema, ROLE_LABELS, WORK_AS_TEAM } from '~/features/teams/ui/forms'
import { FormError } from '~/features/teams/ui/parts'
import { useTeamForm } from '~/features/teams/ui/use-team-form'
import { buttonClass } from '~/ui/button'

export const meta: MetaFunction = () => [
  { title: 'Team invite · Facet Studio' },
  { name: 'robots', content: 'noindex, nofollow' },
]

/** Invite links carry a secret: the page is never cached, and its address is not sent onwards. */
const PRIVATE_HEADERS = { 'Cache-Control': 'private, no-store', 'Referrer-Policy': 'no-referrer' }

const CLOSED: Record<'expired' | 'used' | 'revoked', string> = { expired: INVITE_EXPIRED, used: INVITE_USED, revoked: INVITE_REVOKED }

export async function loader({ request, params }: LoaderFunctionArgs) {
  const invite = await describeInvite(params.token ?? '')
  if (!invite) throw new Response('Not found', { status: 404, headers: PRIVATE_HEADERS })
  const auth = await getAuthentication(request)
  const url = new URL(request.url)
  const here = url.pathname
  const signedInAs = auth.kind === 'user' ? auth.user.email : null
  const page = {
    teamName: invite.teamName,
    email: invite.email,
    role: invite.role,
    status: invite.status,
    /** Why the invite no longer works (null while it does). */
    message: invite.status === 'pending' ? null : CLOSED[invite.status],
    /** For someone signed in with another address: which one to use. */
    wrongAddress: signedInAs !== null && signedInAs.toLowerCase() !== invite.email.toLowerCase() ? wrongAddress(invite.email) : null,
    signedInAs,
    sameAddress: signedInAs !== null && signedInAs.toLowerCase() === invite.email.toLowerCase(),
    signInHref: `/login?${new URLSearchParams({ from: here })}`,
    signUpHref: `/login?${new URLSearchParams({ mode: 'register', from: here })}`,
  }
  return data(page, { status: invite.status === 'pending' ? 200 : 410, headers: PRIVATE_HEADERS })
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, sessionId } = await requireUser(request)
  const submission = parseWithZod(await request.formData(), { schema: acceptFormSchema })
  if (submission.status !== 'success') return invalidReply('accept', submission)
  try {
    const workAsTeam = submission.value.then === WORK_AS_TEAM
    const { teamId } = await joinTeam({ userId: user.id, sessionId }, params.token ?? '', { workAsTeam })
    return redirectWithNotice(`/teams/${teamId}`, workAsTeam ? 'joined-working' : 'joined')
  } catch (error) {
    return teamErrorReply('accept', submission, error)
  }
}

/** Two ways to accept: and work as the team at once (its credits on the tools), or just join. */
function AcceptForm({ teamName }: { teamName: string }) {
  const [form] = useTeamForm('accept', acceptFormSchema)
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting'
  const pending = navigation.formData?.get('then')
  return (
    <Form method="post" {...getFormProps(form)} className="mt-6 space-y-3">
      <FormError errors={form.errors} />
      <button type="submit" name="then" value={WORK_AS_TEAM} className={buttonClass('primary', 'w-full')} disabled={busy}>
        {busy && pending === WORK_AS_TEAM ? 'Joining...' : 'Use the team’s credits now'}
      </button>
      <p className="text-xs text-slate-600 [overflow-wrap:anywhere]">Joins {teamName} and spends its credits on the tools in this browser. Switch back any time from your credits in the header.</p>
      <button type="submit" className={buttonClass('secondary', 'w-full')} disabled={busy}>
        {busy && pending !== WORK_AS_TEAM ? 'Joining...' : 'Accept the invite'}
      </button>
    </Form>
  )
}

export default function TeamInvitePage() {
  const invite = useLoaderData<typeof loader>()
  const linkClass = 'font-semibold text-indigo-700 underline underline-offset-2'
  return (
    <div className="mx-auto w-full max-w-md px-4 py-10 sm:py-16">
      <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <p className="text-sm font-semibold uppercase tracking-wide text-indigo-600">Team invite</p>
        <h1 className="mt-1 text-2xl font-bold tracking-tight text-slate-900 [overflow-wrap:anywhere]">Join {invite.teamName}</h1>
        <p className="mt-2 text-slate-700 [overflow-wrap:anywhere]">
          {invite.email} is invited as <span className="font-semibold">{ROLE_LABELS[invite.role]}</span>. Members share the team’s credits on every tool.
        </p>

        {invite.status !== 'pending' ? (
          <div className="mt-6 rounded-xl border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900" role="alert" data-testid="invite-closed">
            {invite.message}
          </div>
        ) : invite.signedInAs === null ? (
          <div className="mt-6 space-y-3" data-testid="invite-sign-in">
            <p className="text-sm text-slate-700 [overflow-wrap:anywhere]">
              Sign in or create an account with <span className="font-semibold">{invite.email}</span> to accept.
            </p>
            <div className="flex flex-wrap gap-2">
              <Link to={invite.signInHref} className={buttonClass('primary')}>
                Sign in
              </Link>
              <Link to={invite.signUpHref} className={buttonClass('secondary')}>
                Create an account
              </Link>
            </div>
            <p className="text-xs text-slate-600">{INVITE_NEW_ACCOUNT_NOTE}</p>
          </div>
        ) : invite.sameAddress ? (
          <AcceptForm teamName={invite.teamName} />
        ) : (
          <div className="mt-6 rounded-xl border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900 [overflow-wrap:anywhere]" role="alert" data-testid="invite-wrong-address">
            You are signed in as {invite.signedInAs}. {invite.wrongAddress}
          </div>
        )}
        {invite.signedInAs !== null ? (
          <p className="mt-6 text-center text-sm">
            <Link to="/teams" className={linkClass}>
              Your teams
            </Link>
          </p>
        ) : null}
      </div>
    </div>
  )
}
