// POST /teams/working-as: the header's "Working as" switch. Field `team` is a team id, or '' for
// the viewer's own balance; `from` is where to go back to (only a path on this site). The browser
// session then spends the chosen balance on the tools, the batch screen and the session's API calls.
import { parseWithZod } from '@conform-to/zod/v4'
import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { requireUser } from '~/features/account/guards.server'
import { safeRedirectPath } from '~/features/auth/redirect'
import { redirectWithNotice } from '~/features/teams/team-forms.server'
import { setWorkingTeam, TeamError } from '~/features/teams/teams.server'
import { workingAsFormSchema } from '~/features/teams/ui/forms'

export function loader() {
  return redirect('/teams')
}

export async function action({ request }: ActionFunctionArgs) {
  const { user, sessionId } = await requireUser(request)
  const form = await request.formData()
  const back = safeRedirectPath(form.get('from'), '/teams', new URL(request.url).origin)
  const submission = parseWithZod(form, { schema: workingAsFormSchema })
  if (submission.status !== 'success') return redirect(back, { status: 303 })
  try {
    await setWorkingTeam(sessionId, user.id, submission.value.team ?? null)
  } catch (error) {
    // Not a member (any more): the header keeps the own balance; the teams page says why.
    if (!(error instanceof TeamError)) throw error
    return redirectWithNotice('/teams', 'not-a-member')
  }
  return redirect(back, { status: 303 })
}
