// Reading the local outbox (mail written when SMTP_URL is unset): for tests and for operators.
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { outboxDir, type OutboxEntry } from './mailer.server'

/** Every mail written for `to`, oldest first. */
export async function readOutbox(to: string, dir: string = outboxDir()): Promise<OutboxEntry[]> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return []
  }
  const entries = await Promise.all(
    names.filter((n) => n.endsWith('.json')).sort().map(async (n) => JSON.parse(await readFile(path.join(dir, n), 'utf8')) as OutboxEntry),
  )
  return entries.filter((e) => e.to.toLowerCase() === to.toLowerCase())
}

export async function latestMailTo(to: string, dir?: string): Promise<OutboxEntry | undefined> {
  const all = await readOutbox(to, dir)
  return all.at(-1)
}
