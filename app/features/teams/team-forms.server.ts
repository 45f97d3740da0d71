// What the team screens' actions share: a domain refusal (TeamError) becomes the form's error with
// the domain's status, and a form that worked redirects (303, so a reload never posts again) to the
// page with its notice. Nothing here decides a rule: the domain functions do.
import { data, redirect } from '@remix-run/node'
import { TeamError } from './teams.server'
import type { TeamNotice } from './ui/forms'
import type { TeamFormReplyData as TeamFormReply } from './ui/use-team-form'

export type { TeamFormReply }

interface Replyable {
  reply: (options?: { formErrors?: string[]; resetForm?: boolean }) => TeamFormReply['result']
}

/** A TeamError becomes the form's message with its status; anything else is a real failure. */
export function teamErrorReply(form: string, submission: Replyable, error: unknown) {
  if (!(error instanceof TeamError)) throw error
  return data<TeamFormReply>({ form, result: submission.reply({ formErrors: [error.message] }) }, { status: error.status })
}

export function invalidReply(form: string, submission: Replyable) {
  return data<TeamFormReply>({ form, result: submission.reply() }, { status: 400 })
}

export function redirectWithNotice(path: string, notice: TeamNotice) {
  const url = new URL(path, 'http://same.site')
  url.searchParams.set('notice', notice)
  return redirect(url.pathname + url.search + url.hash, { status: 303 })
}
