// Outgoing mail. With SMTP_URL set, nodemailer sends for real; without it, every message is written
// to <DATA_DIR>/mail/ as JSON and its link is logged, so a fresh install works offline and tests can
// read what was "sent".
import { mkdir, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import nodemailer, { type Transporter } from 'nodemailer'
import { config } from '~/config.server'
import { logger } from '~/utils/logger.server'
import { singleton } from '~/utils/singleton.server'

export interface MailMessage {
  to: string
  subject: string
  text: string
  html: string
  /** The one action the mail asks for (a verification or reset link): logged when mail stays local. */
  link?: string
}

export interface OutboxEntry extends MailMessage {
  from: string
  sent_at: string
}

export function outboxDir(): string {
  return path.join(config().dataDir, 'mail')
}

function transport(smtpUrl: string): Transporter {
  return singleton(`mail-transport:${smtpUrl}`, () => nodemailer.createTransport(smtpUrl))
}

/** A file name that sorts by time and says who the mail is for, without characters a filesystem dislikes. */
export function outboxFileName(to: string, at: Date): string {
  const stamp = at.toISOString().replace(/[:.]/g, '-')
  const who = to.toLowerCase().replace(/[^a-z0-9@._+-]/g, '_').slice(0, 120)
  return `${stamp}-${randomBytes(3).toString('hex')}-${who}.json`
}

export async function sendMail(message: MailMessage): Promise<void> {
  const c = config()
  if (c.SMTP_URL) {
    await transport(c.SMTP_URL).sendMail({ from: c.MAIL_FROM, to: message.to, subject: message.subject, text: message.text, html: message.html })
    logger.info({ to: message.to, subject: message.subject }, 'mail sent')
    return
  }
  const now = new Date()
  const entry: OutboxEntry = { ...message, from: c.MAIL_FROM, sent_at: now.toISOString() }
  const dir = outboxDir()
  await mkdir(dir, { recursive: true })
  const file = path.join(dir, outboxFileName(message.to, now))
  // Written under a temporary name and renamed: whoever reads the outbox never sees half a mail.
  await writeFile(`${file}.tmp`, JSON.stringify(entry, null, 2), { mode: 0o600 })
  await rename(`${file}.tmp`, file)
  logger.info({ to: message.to, subject: message.subject, link: message.link, file }, 'mail written to the outbox (SMTP_URL not set)')
}

// Mail that must not slow the answer down, or whose timing would reveal whether an account exists,
// goes out after the response. Tests wait for it with waitForPendingMail().
const pending = singleton('mail-pending', () => new Set<Promise<void>>())

export function sendMailInBackground(message: MailMessage): void {
  const job: Promise<void> = sendMail(message)
    .catch((error: unknown) => logger.error({ err: error, to: message.to, subject: message.subject }, 'mail could not be sent'))
    .finally(() => pending.delete(job))
  pending.add(job)
}

export async function waitForPendingMail(): Promise<void> {
  while (pending.size > 0) await Promise.all([...pending])
}

/** Tells the operator about something (a contact message); does nothing when OPERATOR_EMAIL is unset. */
export async function notifyOperator(subject: string, text: string): Promise<boolean> {
  const to = config().OPERATOR_EMAIL
  if (!to) return false
  await sendMail({ to, subject, text, html: `<pre style="font-family:inherit;white-space:pre-wrap">${escapeHtml(text)}</pre>` })
  return true
}

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}
