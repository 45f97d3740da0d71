// The invite mail: the one link carries the single-use token (only its hash is stored).
import { appLink } from '~/features/auth/emails.server'
import { escapeHtml, type MailMessage } from '~/features/mail/mailer.server'
import { INVITE_TTL_DAYS, type TeamRole } from './roles'

export function inviteLink(token: string): string {
  return appLink(`/teams/invites/${token}`)
}

export function inviteMail(to: string, input: { teamName: string; inviterName: string; role: TeamRole; link: string }): MailMessage {
  const subject = `Join ${input.teamName} on Facet Studio`
  const intro = `${input.inviterName} invited you to join the team ${input.teamName} on Facet Studio as ${input.role === 'member' ? 'a member' : `an ${input.role}`}. Members run the tools on the team's shared credits.`
  const expiry = `The link works once and expires in ${INVITE_TTL_DAYS} days. Without a Facet Studio account, you create one with this address first. If you did not expect this invite, ignore this mail.`
  const p = (t: string) => `<p style="margin:0 0 16px;line-height:1.5">${escapeHtml(t)}</p>`
  return {
    to,
    subject,
    link: input.link,
    text: `Hi,\n\n${intro}\n\nAccept the invite: ${input.link}\n\n${expiry}\n\nFacet Studio\n`,
    html: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f8fafc;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#0f172a">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #e2e8f0;border-radius:12px;padding:32px">
<h1 style="margin:0 0 16px;font-size:20px">${escapeHtml(subject)}</h1>
${p('Hi,')}
${p(intro)}
<p style="margin:24px 0"><a href="${escapeHtml(input.link)}" style="display:inline-block;background:#4f46e5;color:#ffffff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600">Accept the invite</a></p>
<p style="margin:0 0 16px;line-height:1.5;font-size:13px;color:#475569">Or paste this address into your browser:<br><a href="${escapeHtml(input.link)}" style="color:#4f46e5;word-break:break-all">${escapeHtml(input.link)}</a></p>
${p(expiry)}
<p style="margin:24px 0 0;font-size:13px;color:#64748b">Facet Studio</p>
</div></body></html>`,
  }
}
