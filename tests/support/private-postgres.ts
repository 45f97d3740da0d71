// A PostgreSQL cluster of a test's own, for faults that must stop, restart or starve a real server
// (docs/decisions/177): Debian's binaries (the newest /usr/lib/postgresql/*/bin), initdb into a temp folder,
// pg_ctl on a free port, run as the `postgres` user when the test runs as root (PostgreSQL refuses root).
// The machine's own server on 5432 is never touched. `available()` says why there is none, for the skip.
import { execFile, execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { sql } from 'kysely'
import { createPostgresHandle } from '~/db/db.server'

const run = promisify(execFile)

function binFolder(): string | null {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(a) - Number(b))
  return versions.length ? path.join(root, versions.at(-1)!, 'bin') : null
}

const asRoot = process.getuid?.() === 0

/** Why no private cluster can be made here, or null when one can. */
export function privatePostgresUnavailable(): string | null {
  if (!binFolder()) return 'no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)'
  if (asRoot) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' })
    } catch {
      return 'running as root without a `postgres` user to run the cluster as'
    }
  }
  return null
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

export class PrivatePostgres {
  readonly folder: string
  readonly data: string
  port = 0
  private readonly bin: string

  constructor(name: string) {
    this.bin = binFolder()!
    this.folder = mkdtempSync(path.join(os.tmpdir(), `facet-faults-${name}-`))
    this.data = path.join(this.folder, 'data')
    if (asRoot) chownSync(this.folder, ...postgresIds())
  }

  /** Runs a PostgreSQL program as the cluster's owner. */
  async as(program: string, args: string[], timeoutMs = 120_000): Promise<string> {
    const file = path.join(this.bin, program)
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args]
    const { stdout } = await run(cmd, argv, { timeout: timeoutMs })
    return stdout
  }

  /** initdb and start: answers the admin URL (database `postgres`, trust auth). */
  async create(): Promise<string> {
    await this.as('initdb', ['-D', this.data, '-U', 'postgres', '--auth=trust', '--no-sync'])
    this.port = await freePort()
    await this.start()
    return this.url('postgres')
  }

  /** Makes the cluster (create) with one database of the studio's own, and answers that database's URL. */
  async createWithDatabase(database: string): Promise<string> {
    const admin = createPostgresHandle(await this.create(), 1)
    await sql.raw(`CREATE DATABASE ${database}`).execute(admin.db)
    await admin.db.destroy()
    return this.url(database)
  }

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`
  }

  async start(): Promise<void> {
    // fsync off: a test cluster, stopped cleanly (-m fast) or thrown away; durability is not what is tested.
    const options = `-p ${this.port} -k ${this.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`
    await this.as('pg_ctl', ['-D', this.data, '-l', path.join(this.folder, 'log'), '-w', '-t', '90', '-o', options, 'start'])
  }

  /** `-m fast`: every session is cut (the clients see their connections drop), as an operator's restart does. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.as('pg_ctl', ['-D', this.data, '-m', mode, '-w', '-t', '90', 'stop'])
  }

  /** Stops the cluster if it runs and removes its folder: for afterAll, whatever state the test left. */
  async destroy(): Promise<void> {
    if (existsSync(path.join(this.data, 'postmaster.pid'))) await this.stop('immediate').catch(() => {})
    rmSync(this.folder, { recursive: true, force: true })
  }
}

/** The `postgres` user's uid and gid (root runs the cluster as it). */
export function postgresIds(): [number, number] {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
  return [uid, gid]
}
