// Operator commands against a running studio on the embedded database (PGlite): a real server
// process spawned here, `npm run credits` as a real second process. The grant must reach the
// running studio (its balance API shows it at once), and a second server on the same data folder
// must refuse to start, naming the folder and the holder's pid. The same server, behind one trusted
// proxy, shows forged X-Forwarded-For chains buying no fresh sign-in budget.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { expect, test } from './support/test'
import { waitForVerificationToken } from './support/tools'

const PORT = Number(process.env.E2E_PORT ?? 3210) + 50
const DATA_DIR = path.resolve(`tests/.tmp/e2e-operator-${PORT}`)
const BASE = `http://127.0.0.1:${PORT}`

function startServer(port: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR,
      TRUST_PROXY: '1',
      LOG_LEVEL: 'warn',
      BUILD_DIR: process.env.BUILD_DIR ?? 'build',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = { text: '' }
  child.stdout!.on('data', (d) => (output.text += d))
  child.stderr!.on('data', (d) => (output.text += d))
  return { child, output }
}

async function runCredits(...args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/credits.ts', ...args], {
    env: { ...process.env, DATA_DIR, LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  const [code] = await once(child, 'exit')
  return { code: code as number, stdout, stderr }
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return
  child.kill('SIGTERM')
  await once(child, 'exit')
}

// One process check is enough: these run in the js project.
test.describe('operator commands while the studio runs (PGlite)', { tag: '@js-only' }, () => {
  test.describe.configure({ mode: 'serial', timeout: 180_000 })

  let server: ReturnType<typeof startServer> | undefined
  test.beforeAll(async () => {
    rmSync(DATA_DIR, { recursive: true, force: true })
    server = startServer(PORT)
    await expect
      .poll(async () => (await fetch(`${BASE}/healthz`).catch(() => null))?.status, { timeout: 90_000 })
      .toBe(200)
  })
  test.afterAll(async () => {
    if (server) await stop(server.child)
  })

  test('a grant through `npm run credits` is seen by the running studio at once', async () => {
    const email = `operator-${Date.now()}@example.com`
    const register = await fetch(`${BASE}/api/auth/register/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery staple 42', first_name: 'Olga', last_name: 'Ops' }),
    })
    expect(register.status, await register.text()).toBe(201)
    const token = await waitForVerificationToken(email, path.join(DATA_DIR, 'mail'))
    const verify = await fetch(`${BASE}/api/auth/verify-email/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    })
    expect(verify.status).toBe(200)
    const session = ((await verify.json()) as { token: string }).token
    const balance = async () => {
      const response = await fetch(`${BASE}/api/credits/balance/`, { headers: { authorization: `Token ${session}` } })
      return ((await response.json()) as { balance: number }).balance
    }
    const before = await balance()

    const granted = await runCredits('grant', email, '7', 'Outage goodwill')
    expect(granted.code, granted.stderr).toBe(0)
    expect(granted.stdout).toContain(`Balance: ${before + 7}.`)
    expect(await balance()).toBe(before + 7)

    const shown = await runCredits('show', email)
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain(`${email}: ${before + 7} credits`)
    expect(shown.stdout).toContain('Outage goodwill')

    // Refusals come back from the studio as refusals: exit 1 with the reason.
    const refused = await runCredits('grant', `nobody-${Date.now()}@example.com`, '7', 'x')
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('No user with the email')
    expect(await balance()).toBe(before + 7)
  })

  test('the channel is for the studio’s own user only', async () => {
    const socket = path.join(DATA_DIR, 'operator', 'operator.sock')
    expect(statSync(path.dirname(socket)).mode & 0o777).toBe(0o700)
    expect(statSync(socket).mode & 0o777).toBe(0o600)
  })

  test('a second server on the same data folder refuses to start, naming the folder and the pid', async () => {
    const second = startServer(PORT + 1)
    const [code] = await once(second.child, 'exit')
    expect(code).not.toBe(0)
    expect(second.output.text).toContain(path.join(DATA_DIR, 'db'))
    expect(second.output.text).toContain(`pid ${server!.child.pid}`)
    // The first one still serves.
    expect((await fetch(`${BASE}/healthz`)).status).toBe(200)
  })

  test('behind one trusted proxy, a rotating first X-Forwarded-For entry still hits 429', async () => {
    const email = `forged-${Date.now()}@example.com`
    const statuses: number[] = []
    for (let i = 0; i < 15; i++) {
      const response = await fetch(`${BASE}/api/auth/login/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${i}.${i}.1, 198.51.100.77` },
        body: JSON.stringify({ email, password: `wrong-password-${i}` }),
      })
      statuses.push(response.status)
    }
    // 10 tries per address and email: the address is the proxy-reported one, whatever the client wrote first.
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400))
    expect(statuses.slice(10)).toEqual(Array(5).fill(429))
  })
})

test.describe('operator commands with no studio running', { tag: '@js-only' }, () => {
  test('open the database themselves, and leave no lock behind', async () => {
    const dataDir = path.resolve(`tests/.tmp/e2e-operator-offline-${PORT}`)
    rmSync(dataDir, { recursive: true, force: true })
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'production' }
    // A folder with no database is refused, naming it (decision 163): a studio stopped after its first start has one.
    const migrate = spawn(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts'], { env, stdio: 'ignore' })
    expect((await once(migrate, 'exit'))[0]).toBe(0)
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/credits.ts', 'show', 'nobody@example.com'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const [code] = await once(child, 'exit')
    expect(code).toBe(1)
    expect(stderr).toContain('No user with the email nobody@example.com')
    expect(() => statSync(path.join(dataDir, 'db.lock'))).toThrow()
  })
})
