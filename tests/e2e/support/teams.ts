// What the team journeys share: the invite link in the studio's mail outbox.
import path from 'node:path'
import { expect } from '@playwright/test'
import { waitForMail } from './mail'
import { PORT } from './tools'

export const E2E_DATA_DIR = path.resolve(`tests/.tmp/e2e-data-${PORT}`)
export const E2E_MAIL_DIR = path.join(E2E_DATA_DIR, 'mail')

/** The invite link in the newest mail to `to` (the server's outbox folder); waits for it to arrive. */
export async function mailedInviteLink(to: string): Promise<string> {
  const [mail, link] = await waitForMail(E2E_MAIL_DIR, (m) => {
    const found = m.link ?? /https?:\/\/\S+\/teams\/invites\/\S+/.exec(m.text)?.[0]
    return m.to.toLowerCase() === to.toLowerCase() && found?.includes('/teams/invites/') ? ([m, found] as const) : undefined
  })
  expect(mail.text).toContain(link)
  return link
}
