// The account mails: each has a text and an HTML part, and links built from PUBLIC_URL.
import { config } from '~/config.server'
import { escapeHtml, type MailMessage } from '~/features/mail/mailer.server'

export function appLink(pathname: string, query: Record<string, string> = {}): string {
  const url = new URL(pathname, config().PUBLIC_URL)
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value)
  return url.toString()
}

/** 'Hi Ada,' (or 'Hi,'): every mail's first line. */
export function greeting(firstName: string | null | undefined): string {
  return firstName ? `Hi ${firstName},` : 'Hi,'
}

/** Every mail's HTML part: a title, paragraphs, an optional button (with its address written out) and closing lines. */
export function layout(title: string, paragraphs: string[], action?: { label: string; href: string }, after: string[] = []) {
  const p = (t: string) => `<p style="margin:0 0 16px;line-height:1.5">${escapeHtml(t)}</p>`
  const button = action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action.href)}" style="display:inline-block;background:#4f46e5;color:#ffffff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600">${escapeHtml(action.label)}</a></p>
<p style="margin:0 0 16px;line-height:1.5;font-size:13px;color:#475569">Or paste this address into your browser:<br><a href="${escapeHtml(action.href)}" style="color:#4f46e5;word-break:break-all">${escapeHtml(action.href)}</a></p>`
    : ''
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:24px;background:#f8fafc;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#0f172a">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #e2e8f0;border-radius:12px;padding:32px">
<h1 style="margin:0 0 16px;font-size:20px">${escapeHtml(title)}</h1>
${paragraphs.map(p).join('\n')}
${button}
${after.map(p).join('\n')}
<p style="margin:24px 0 0;font-size:13px;color:#64748b">Facet Studio</p>
</div></body></html>`
}

export function verificationMail(to: string, firstName: string | null, link: string, hours: number): MailMessage {
  const subject = 'Confirm your email for Facet Studio'
  const intro = 'Thanks for creating a Facet Studio account. Confirm your email address to sign in and collect your free credits.'
  const expiry = `This link expires in ${hours} hours. If you did not create an account, you can ignore this mail.`
  return {
    to,
    subject,
    link,
    text: `${greeting(firstName)}\n\n${intro}\n\nConfirm your email: ${link}\n\n${expiry}\n\nFacet Studio\n`,
    html: layout(subject, [greeting(firstName), intro], { label: 'Confirm my email', href: link }, [expiry]),
  }
}

export function accountExistsMail(to: string, firstName: string | null, loginLink: string): MailMessage {
  const subject = 'You already have a Facet Studio account'
  const intro =
    'Someone (hopefully you) tried to create a Facet Studio account with this email address, but an account already exists. Sign in instead; if you have forgotten your password, use "Forgot your password?" on the sign-in page.'
  const ignore = 'If this was not you, you can ignore this mail: nothing has changed.'
  return {
    to,
    subject,
    link: loginLink,
    text: `${greeting(firstName)}\n\n${intro}\n\nSign in: ${loginLink}\n\n${ignore}\n\nFacet Studio\n`,
    html: layout(subject, [greeting(firstName), intro], { label: 'Sign in', href: loginLink }, [ignore]),
  }
}

/** After a reset (decision 162): what ended, so an owner who did not ask for it knows at once. */
export function passwordChangedMail(
  to: string,
  firstName: string | null,
  ended: { sessions: number; keys: Array<{ name: string; prefix: string }> },
  keysLink: string,
): MailMessage {
  const subject = 'Your Facet Studio password was changed'
  const intro = 'The password of your Facet Studio account was just changed with a reset link.'
  const sessions = `Every browser and app signed in to the account was signed out (${ended.sessions} session${ended.sessions === 1 ? '' : 's'}).`
  const keys = ended.keys.length
    ? `Every API key you had made was revoked, in case whoever knew the old password made one: ${ended.keys.map((k) => `${k.name} (${k.prefix}…)`).join(', ')}. Make new keys for your scripts.`
    : 'You had no API keys, so none was revoked.'
  const warning = 'If you did not change your password, reset it again now and check your API keys and teams.'
  return {
    to,
    subject,
    link: keysLink,
    text: `${greeting(firstName)}\n\n${intro}\n\n${sessions}\n\n${keys}\n\nYour API keys: ${keysLink}\n\n${warning}\n\nFacet Studio\n`,
    html: layout(subject, [greeting(firstName), intro, sessions, keys], { label: 'Your API keys', href: keysLink }, [warning]),
  }
}

export function passwordResetMail(to: string, firstName: string | null, link: string, hours: number): MailMessage {
  const subject = 'Reset your Facet Studio password'
  const intro = 'We received a request to reset the password of your Facet Studio account.'
  const expiry = `This link works once and expires in ${hours} hour${hours === 1 ? '' : 's'}. If you did not ask for it, ignore this mail: your password stays as it is.`
  return {
    to,
    subject,
    link,
    text: `${greeting(firstName)}\n\n${intro}\n\nChoose a new password: ${link}\n\n${expiry}\n\nFacet Studio\n`,
    html: layout(subject, [greeting(firstName), intro], { label: 'Choose a new password', href: link }, [expiry]),
  }
}

/** After an account deletion (decision 171): sent to the address the account had, the last thing the studio sends it. */
export function accountDeletedMail(to: string, firstName: string | null, kept: string): MailMessage {
  const subject = 'Your Facet Studio account was deleted'
  const intro = 'Your Facet Studio account was deleted at your request. You were signed out everywhere, your API keys stopped working, and your results, teams’ memberships, invites and webhooks were removed.'
  const warning = `If you did not delete your account, write to ${config().SUPPORT_EMAIL} at once.`
  return {
    to,
    subject,
    text: `${greeting(firstName)}\n\n${intro}\n\n${kept}\n\n${warning}\n\nFacet Studio\n`,
    html: layout(subject, [greeting(firstName), intro, kept], undefined, [warning]),
  }
}
