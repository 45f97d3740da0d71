// PGlite allows one process per data folder; a second one opening it sees stale data and writes
// that the first never sees (an operator grant made beside a running studio was silently lost).
// Whoever opens the folder first holds a lock file beside it naming its pid; another process is
// refused with a message naming the folder and that pid. A lock whose process has died is taken over.
import { linkSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'

export class DataFolderLockedError extends Error {
  constructor(
    readonly folder: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${folder} is in use by another process (pid ${pid}), most likely a running studio. ` +
        'PGlite allows one process per data folder: stop that process first (operator commands such as ' +
        '`npm run credits` reach a running studio by themselves).',
    )
    this.name = 'DataFolderLockedError'
  }
}

export function lockFileFor(folder: string): string {
  return `${folder}.lock`
}

function holderOf(file: string): { pid: number | null; inode: number } | null {
  try {
    const inode = statSync(file).ino
    const pid = Number(readFileSync(file, 'utf8').trim())
    return { pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null, inode }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else, which is still a live holder.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const held = new Set<string>()
let cleanupRegistered = false

function releaseAllOnExit() {
  if (cleanupRegistered) return
  cleanupRegistered = true
  process.on('exit', () => {
    for (const file of held) releaseLockFile(file)
  })
}

function releaseLockFile(file: string) {
  if (holderOf(file)?.pid === process.pid) rmSync(file, { force: true })
  held.delete(file)
}

/**
 * Takes the lock on `folder` for this process, or throws DataFolderLockedError. Released when the
 * process exits (or by the returned function). Taking it twice in one process is fine.
 */
export function lockDataFolder(folder: string): () => void {
  const file = lockFileFor(folder)
  const release = () => releaseLockFile(file)
  for (let attempt = 0; attempt < 5; attempt++) {
    // The pid is written to a file of our own first and then linked into place: link() fails when
    // the name exists, atomically, so nobody ever reads a lock file that is not fully written.
    const mine = `${file}.${process.pid}`
    writeFileSync(mine, `${process.pid}\n`, { mode: 0o600 })
    try {
      linkSync(mine, file)
      held.add(file)
      releaseAllOnExit()
      return release
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    } finally {
      unlinkSync(mine)
    }
    const holder = holderOf(file)
    if (!holder) continue
    if (holder.pid === process.pid) return release
    if (holder.pid !== null && isProcessAlive(holder.pid)) throw new DataFolderLockedError(folder, holder.pid)
    // Left behind by a process that died (or unreadable): take it over, unless someone else already
    // replaced it with a fresh one in the meantime (a different file then).
    if (holderOf(file)?.inode === holder.inode) rmSync(file, { force: true })
  }
  throw new Error(`Could not take the lock ${file}: it keeps changing hands.`)
}
