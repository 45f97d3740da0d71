// The studio's outbox in tests: one JSON file a mail in <DATA_DIR>/mail. A journey waits for its mail
// to arrive (the folder changing), for as long as the test itself may run: no guessed count of tries.
import { watch, type FSWatcher } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'

export type Mail = { to: string; subject: string; link?: string; html: string; text: string }

const PORT = Number(process.env.E2E_PORT ?? 3210)
/** The outbox of the suite's studio (playwright.config.ts's first web server). */
export const MAIL_DIR = path.resolve(`tests/.tmp/e2e-data-${PORT}/mail`)

/** The newest mail in `mailDir` for which `pick` returns a value, and that value; waits for it to arrive. */
export async function waitForMail<T>(mailDir: string, pick: (mail: Mail) => T | undefined): Promise<T> {
  for (;;) {
    const names = (await readdir(mailDir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort().reverse()
    for (const name of names) {
      const mail = await readMail(path.join(mailDir, name))
      if (!mail) continue
      const picked = pick(mail)
      if (picked !== undefined) return picked
    }
    await folderChange(mailDir)
  }
}

/** A mail file, or null while it is still being written. */
async function readMail(file: string): Promise<Mail | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Mail
  } catch {
    return null
  }
}

/** Resolves when something in `dir` changes; a second at most (a mail written before the watch began). */
function folderChange(dir: string): Promise<void> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | undefined
    const done = () => {
      clearTimeout(timer)
      watcher?.close()
      resolve()
    }
    const timer = setTimeout(done, 1_000)
    try {
      watcher = watch(dir, done)
    } catch {
      // The folder is made with the first mail: the timer rescans.
    }
  })
}
