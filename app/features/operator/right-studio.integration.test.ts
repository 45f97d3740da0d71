// Issue 34, item 2: an operator command acts on the database its environment names, whatever socket
// DATA_DIR holds. A stand-in studio listens on the data folder's operator channel and records every
// command that reaches it, answering as a studio without the user would ("No user with the email").
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createVerifiedUser } from '~/features/auth/testing.server'
import { ensureUserAccount, getBalance } from '~/features/credits/ledger.server'
import { executeOperatorCommand, startOperatorChannel, type OperatorChannel } from './channel.server'
import { OperatorError } from './errors'
import type { StudioIdentity } from './studio.server'

const folders: string[] = []
const channels: OperatorChannel[] = []
function dataFolder(): string {
  const folder = mkdtempSync(path.resolve('tests/.tmp/op-right-'))
  folders.push(folder)
  return folder
}
afterEach(async () => {
  while (channels.length) await channels.pop()!.close()
})
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

/** A studio on `dataDir`'s channel that runs nothing: it records what reached it and knows no user. */
async function standInStudio(dataDir: string, database: StudioIdentity['database']) {
  const reached: string[] = []
  const channel = await startOperatorChannel(dataDir, {
    studio: { publicUrl: 'http://other-studio.test:3000', pid: 4242, database },
    run: async (command, args) => {
      reached.push(command)
      throw new OperatorError(`No user with the email ${(args as { email: string }).email}.`)
    },
  })
  channels.push(channel!)
  return reached
}

const POSTGRES = process.env.TEST_DB === 'postgres'

describe('with DATABASE_URL, the command goes to that database, never to the socket in DATA_DIR', () => {
  it('a grant lands in the database DATABASE_URL names while an embedded studio answers on DATA_DIR', async () => {
    const dataDir = dataFolder()
    const reached = await standInStudio(dataDir, { kind: 'embedded', dataDir })
    const { user } = await createVerifiedUser()
    // On the PostgreSQL run this is the test database itself; on PGlite the test's own database plays
    // its part (a URL that names no reachable server, so nothing could go there by mistake).
    const connectionString = POSTGRES ? process.env.TEST_DATABASE_URL! : 'postgres://facet:s3cret@db.invalid:5432/facet'
    const done = await executeOperatorCommand({ kind: 'postgres', connectionString }, 'grant', { email: user.email, amount: 5, reason: 'Goodwill' }, getDb())
    expect(done.result).toMatchObject({ email: user.email, balance: 5 })
    expect(await getBalance(await ensureUserAccount(user.id))).toBe(5)
    expect(reached).toEqual([])
    expect(done.actedOn).toMatch(/^PostgreSQL postgres:\/\/.*, connected to directly \(DATABASE_URL\)$/)
    expect(done.actedOn).not.toContain('s3cret')
  })

  it.skipIf(!POSTGRES)('npm run credits: the issue\'s command, as a real process, changes PostgreSQL and says so', async () => {
    const dataDir = dataFolder()
    const reached = await standInStudio(dataDir, { kind: 'embedded', dataDir })
    const { user } = await createVerifiedUser()
    // The child reaches this worker's schema of the test database through the URL itself.
    const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(getDb())
    const url = new URL(process.env.TEST_DATABASE_URL!)
    url.searchParams.set('options', `-c search_path=${rows[0].schema}`)
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/credits.ts', 'grant', user.email, '7', 'Outage goodwill'], {
      env: { ...process.env, DATABASE_URL: url.href, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const [code] = await once(child, 'exit')
    expect(code, stderr).toBe(0)
    expect(stdout).toContain(`Granted 7 credits to ${user.email}`)
    expect(stdout).toContain(`Changed in: PostgreSQL postgres://${url.username ? `${url.username}@` : ''}${url.host}${url.pathname}`)
    expect(await getBalance(await ensureUserAccount(user.id))).toBe(7)
    expect(reached).toEqual([])
  })
})

describe('without DATABASE_URL, the embedded database in DATA_DIR', () => {
  it('a studio there on another database refuses, naming both, and runs nothing', async () => {
    const dataDir = dataFolder()
    const reached = await standInStudio(dataDir, { kind: 'postgres', description: 'PostgreSQL postgres://facet@db.internal:5432/facet (password hidden)' })
    const refusal = await executeOperatorCommand({ kind: 'embedded', dataDir }, 'grant', { email: 'someone@example.test', amount: 5, reason: 'x' }).catch((e: unknown) => e)
    expect(refusal).toBeInstanceOf(OperatorError)
    const message = (refusal as OperatorError).message
    expect(message).toContain('uses PostgreSQL postgres://facet@db.internal:5432/facet (password hidden)')
    expect(message).toContain(`this command's environment names the embedded database in ./${path.relative(process.cwd(), dataDir)} (DATABASE_URL is unset)`)
    expect(message).toContain('http://other-studio.test:3000, pid 4242')
    expect(message).toContain('Nothing was changed.')
    expect((refusal as OperatorError).lookedIn).toContain('the studio at http://other-studio.test:3000')
    expect(reached).toEqual([])
  })

  it('a studio there on that very folder runs the command and the answer names it', async () => {
    const dataDir = dataFolder()
    const link = `${dataDir}-link`
    symlinkSync(dataDir, link)
    folders.push(link)
    // The studio's own command table on this test's database, describing itself as the embedded one there.
    const channel = await startOperatorChannel(dataDir, { studio: { publicUrl: 'http://studio.test:3000', pid: 99, database: { kind: 'embedded', dataDir } } })
    channels.push(channel!)
    const { user } = await createVerifiedUser()
    // Reached through a symbolic link to the same folder: the same studio, so it runs.
    const done = await executeOperatorCommand({ kind: 'embedded', dataDir: link }, 'grant', { email: user.email, amount: 3, reason: 'Goodwill' })
    expect(done.result).toMatchObject({ email: user.email, balance: 3 })
    expect(done.actedOn).toBe(
      `the studio at http://studio.test:3000 (pid 99, through ./${path.relative(process.cwd(), link)}/operator/operator.sock), on the embedded database in ./${path.relative(process.cwd(), dataDir)}`,
    )
    // A refusal from it says where it looked, so a wrong studio's "No user" is plain to see.
    const refusal = await executeOperatorCommand({ kind: 'embedded', dataDir }, 'show', { email: 'nobody@example.test' }).catch((e: unknown) => e)
    expect((refusal as OperatorError).lookedIn).toContain('the studio at http://studio.test:3000')
  })

  it('with no studio and no database in the folder, refuses instead of making an empty one', async () => {
    const dataDir = dataFolder()
    const refusal = await executeOperatorCommand({ kind: 'embedded', dataDir }, 'grant', { email: 'someone@example.test', amount: 5, reason: 'x' }).catch((e: unknown) => e)
    expect(refusal).toBeInstanceOf(OperatorError)
    expect((refusal as OperatorError).message).toMatch(/^No studio answers on .*operator\.sock, and the embedded database in .* does not exist \(DATABASE_URL is unset\)\. Nothing was changed\./)
    expect(existsSync(path.join(dataDir, 'db'))).toBe(false)
  })
})
