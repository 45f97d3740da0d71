// "Your result is ready": the mail a signed-in person gets when a run they started on a page took
// longer than a minute (the page told them they could leave). Sent for every such run, not only when
// the page was left: whether a person left cannot be known (a tab in the background, a phone that
// locked, a page without JavaScript refreshing itself), and a minute is long enough that a mail is
// welcome either way (docs/decisions/133). Not for API keys (a script polls), batches (their own
// page) or test keys.
import { getDb } from '~/db/db.server'
import { appLink, greeting, layout } from '~/features/auth/emails.server'
import { HISTORY_LINK } from '~/features/layout/nav'
import { sendMailInBackground, type MailMessage } from '~/features/mail/mailer.server'
import { TOOLS, type ToolSlug } from '~/catalog/tools'
import { LEAVE_PAGE_AFTER_MS } from './run-time'
import type { ToolJobInfo } from './jobs.server'

/** Whether a delivered job earns the mail (who started it, how, and how long it took from submission to result). */
export function deservesReadyMail(job: Pick<ToolJobInfo, 'user_id' | 'api_key_id' | 'batch_id' | 'test_mode' | 'status' | 'outcome' | 'created_at' | 'finished_at'>): boolean {
  if (!job.user_id || job.api_key_id || job.batch_id || job.test_mode) return false
  if (job.status !== 'succeeded' || job.outcome !== 'success' || !job.finished_at) return false
  return new Date(job.finished_at).getTime() - new Date(job.created_at).getTime() > LEAVE_PAGE_AFTER_MS
}

export function resultReadyMail(to: string, firstName: string | null, job: Pick<ToolJobInfo, 'id' | 'tool' | 'original_name'>): MailMessage {
  const tool = TOOLS[job.tool as ToolSlug]
  const link = appLink(tool.path, { job: job.id })
  const history = appLink(HISTORY_LINK.to)
  const subject = `Your ${tool.name.toLowerCase()} result is ready`
  const intro = `The ${tool.name.toLowerCase()} has finished with ${job.original_name || 'your image'}. Your result is ready to download.`
  const kept = `Results are kept for 24 hours. All your recent runs are in your history: ${history}`
  return {
    to,
    subject,
    link,
    text: `${greeting(firstName)}\n\n${intro}\n\nOpen your result: ${link}\n\n${kept}\n\nFacet Studio\n`,
    html: layout(subject, [greeting(firstName), intro], { label: 'Open my result', href: link }, [kept]),
  }
}

/** After a delivered run: the mail, when the run earns it (sent after the answer, never holding it up). */
export async function mailIfLongRun(job: ToolJobInfo): Promise<boolean> {
  if (!deservesReadyMail(job)) return false
  const user = await getDb().selectFrom('users').select(['email', 'first_name']).where('id', '=', job.user_id!).executeTakeFirst()
  if (!user) return false
  sendMailInBackground(resultReadyMail(user.email, user.first_name, job))
  return true
}
