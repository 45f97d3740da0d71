// The operator channel in-process: a real Unix socket, the real command table, this test's database.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createVerifiedUser } from '~/features/auth/testing.server'
import { getDb } from '~/db/db.server'
import { getBalance, ensureUserAccount } from '~/features/credits/ledger.server'
import { executeOperatorCommand, operatorSocketPath, sendOperatorCommand, startOperatorChannel, type OperatorChannel } from './channel.server'
import { OperatorError } from './errors'

const dataDir = mkdtempSync(path.resolve('tests/.tmp/op-'))
const elsewhere = mkdtempSync(path.resolve('tests/.tmp/op-none-'))
let channel: OperatorChannel | null

beforeAll(async () => {
  channel = await startOperatorChannel(dataDir)
})
afterAll(async () => {
  await channel?.close()
  for (const dir of [dataDir, elsewhere]) rmSync(dir, { recursive: true, force: true })
})

function rawExchange(payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let reply = ''
    const socket = net.createConnection(operatorSocketPath(dataDir), () => socket.write(payload))
    socket.setEncoding('utf8')
    socket.on('data', (d: string) => (reply += d))
    socket.on('end', () => resolve(reply))
    socket.on('error', reject)
  })
}

describe('operator channel', () => {
  it('listens on a socket only its owner can reach', () => {
    expect(channel?.socketPath).toBe(operatorSocketPath(dataDir))
    expect(statSync(path.dirname(operatorSocketPath(dataDir))).mode & 0o777).toBe(0o700)
    expect(statSync(operatorSocketPath(dataDir)).mode & 0o777).toBe(0o600)
  })

  it('runs a command by name with JSON arguments and answers JSON', async () => {
    const { user } = await createVerifiedUser()
    const reply = await sendOperatorCommand(operatorSocketPath(dataDir), 'grant', { email: user.email, amount: 9, reason: 'Goodwill' })
    expect(reply).toMatchObject({ ok: true, result: { email: user.email, balance: 9 } })
    expect(await getBalance(await ensureUserAccount(user.id))).toBe(9)
    const shown = await sendOperatorCommand(operatorSocketPath(dataDir), 'show', { email: user.email })
    expect(shown).toMatchObject({ ok: true, result: { balance: 9, transactions: [{ delta: 9, description: 'Goodwill' }] } })
  })

  it('answers refusals and wrong calls as such, without running anything', async () => {
    const socket = operatorSocketPath(dataDir)
    expect(await sendOperatorCommand(socket, 'grant', { email: 'nobody@example.test', amount: 5, reason: 'x' })).toMatchObject({
      ok: false,
      kind: 'refused',
      error: 'No user with the email nobody@example.test.',
    })
    expect(await sendOperatorCommand(socket, 'drop-everything', {})).toMatchObject({ ok: false, kind: 'invalid' })
    expect(await sendOperatorCommand(socket, 'toString', {})).toMatchObject({ ok: false, kind: 'invalid' })
    expect(await sendOperatorCommand(socket, 'grant', { email: 'a@b.c', amount: 1.5, reason: 'x' })).toMatchObject({ ok: false, kind: 'invalid' })
    expect(JSON.parse(await rawExchange('not json\n'))).toMatchObject({ ok: false, kind: 'invalid' })
    expect(JSON.parse(await rawExchange('x'.repeat(70_000)))).toMatchObject({ ok: false, error: 'The request is too large.' })
  })

  it('the client helper turns refusals into OperatorError and runs locally when no studio listens', async () => {
    await expect(executeOperatorCommand({ kind: 'embedded', dataDir }, 'show', { email: 'nobody@example.test' })).rejects.toBeInstanceOf(OperatorError)
    expect(await sendOperatorCommand(operatorSocketPath(elsewhere), 'show', {})).toBeNull()
    const { user } = await createVerifiedUser()
    // No channel there: the command runs on this process's own database handle.
    const here = await executeOperatorCommand({ kind: 'embedded', dataDir: elsewhere }, 'show', { email: user.email }, getDb())
    expect(here.result).toMatchObject({ email: user.email, balance: 0 })
    expect(here.actedOn).toMatch(/^the embedded database in .*op-none-.*, opened by this command \(no studio is running on it\)$/)
  })

  it('a second channel on the same DATA_DIR stays off instead of taking the socket', async () => {
    expect(await startOperatorChannel(dataDir)).toBeNull()
    expect(await sendOperatorCommand(operatorSocketPath(dataDir), 'show', { email: 'nobody@example.test' })).toMatchObject({ kind: 'refused' })
  })
})
