// What the team screens' actions share: a domain refusal (TeamError) becomes the form's error with
// the domain's status, and a form that worked redirects (303, so a reload never posts again) to the
// page with its notice, shown once (a flash cookie, decision 075). Nothing here decides a rule: the
// domain functions do.
import { data, redirect } from '@remix-run/node'
import { createFlash } from '~/utils/flash.server'
import { TeamError } from './teams.server'
import { noticeText, type TeamNotice } from './ui/forms'
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

/** The notice's key (never its text) and the page it was meant for. */
interface NoticeFlash {
  to: string
  notice: TeamNotice
}

// Path '/': with JavaScript the next page's data comes from `/teams/<id>.data`, outside a cookie
// scoped to /teams/<id>. Only the team screens' loaders read it.
const noticeFlash = createFlash<NoticeFlash>('fs_team_notice', { maxAgeSeconds: 60 })

const pageOf = (path: string) => new URL(path, 'http://same.site').pathname.replace(/\/+$/, '') || '/'

/** A 303 to `path` whose page then says the notice's fixed sentence, once. */
export async function redirectWithNotice(path: string, notice: TeamNotice) {
  const flash: NoticeFlash = { to: pageOf(path), notice }
  return redirect(path, { status: 303, headers: { 'Set-Cookie': await noticeFlash.set(flash) } })
}

/**
 * For a team screen's loader: the sentence a form left for this page (null when none, or when it was
 * meant for another page), and the headers of the page's answer, which clear the notice once read so
 * a reload shows it no more. The sentence comes from TEAM_NOTICES by key: the cookie never carries text.
 */
export async function takeNotice(request: Request): Promise<{ notice: string | null; headers: Headers }> {
  const headers = new Headers({ 'Cache-Control': 'private, no-store' })
  const { value, clear } = await noticeFlash.take(request)
  if (clear) headers.append('Set-Cookie', clear)
  const forHere = value !== null && typeof value === 'object' && value.to === pageOf(new URL(request.url).pathname)
  return { notice: forHere ? noticeText(value.notice) : null, headers }
}
