// What the team journeys share: the invite link in the studio's mail outbox.
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { expect } from '@playwright/test'
import { PORT } from './tools'

export const E2E_DATA_DIR = path.resolve(`tests/.tmp/e2e-data-${PORT}`)
export const E2E_MAIL_DIR = path.join(E2E_DATA_DIR, 'mail')

/** The invite link in the newest mail to `to` (the server's outbox folder). */
export async function mailedInviteLink(to: string): Promise<string> {
  for (let attempt = 0; attempt < 75; attempt++) {
    const names = (await readdir(E2E_MAIL_DIR).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort().reverse()
    for (const name of names) {
      const mail = JSON.parse(await readFile(path.join(E2E_MAIL_DIR, name), 'utf8')) as { to: string; link?: string; text: string; html: string }
      const link = mail.link ?? /https?:\/\/\S+\/teams\/invites\/\S+/.exec(mail.text)?.[0]
      if (mail.to.toLowerCase() !== to.toLowerCase() || !link?.includes('/teams/invites/')) continue
      expect(mail.text).toContain(link)
      return link
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`no invite mail for ${to} in ${E2E_MAIL_DIR}`)
}
