// The PGlite data-folder lock, with real processes as holders.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DataFolderLockedError, lockDataFolder, lockFileFor } from './data-folder-lock.server'

const children: Array<ReturnType<typeof spawn>> = []
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

function folder() {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'facet-lock-')), 'db')
}

function liveProcess() {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
  children.push(child)
  return child
}

describe('lockDataFolder', () => {
  it('takes the lock with this pid, again in the same process, and gives it back', () => {
    const dir = folder()
    const release = lockDataFolder(dir)
    expect(readFileSync(lockFileFor(dir), 'utf8').trim()).toBe(String(process.pid))
    lockDataFolder(dir)
    release()
    expect(existsSync(lockFileFor(dir))).toBe(false)
  })

  it('refuses while another live process holds it, naming the folder and the pid', async () => {
    const dir = folder()
    const holder = liveProcess()
    writeFileSync(lockFileFor(dir), `${holder.pid}\n`)
    let refusal: unknown
    try {
      lockDataFolder(dir)
    } catch (error) {
      refusal = error
    }
    expect(refusal).toBeInstanceOf(DataFolderLockedError)
    expect((refusal as Error).message).toContain(dir)
    expect((refusal as Error).message).toContain(`pid ${holder.pid}`)
    expect(readFileSync(lockFileFor(dir), 'utf8').trim()).toBe(String(holder.pid))

    // Once that process is gone its lock is stale and taken over.
    holder.kill('SIGKILL')
    await once(holder, 'exit')
    const release = lockDataFolder(dir)
    expect(readFileSync(lockFileFor(dir), 'utf8').trim()).toBe(String(process.pid))
    release()
  })

  it('takes over a lock file that names no process', () => {
    const dir = folder()
    writeFileSync(lockFileFor(dir), 'not a pid\n')
    const release = lockDataFolder(dir)
    expect(readFileSync(lockFileFor(dir), 'utf8').trim()).toBe(String(process.pid))
    release()
  })
})
