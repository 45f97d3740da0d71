// Which studio and which database an operator command acts on, and how to say it (decision 163).
// The environment decides: DATABASE_URL names a PostgreSQL database, which the command reaches
// directly (PostgreSQL takes any number of connections); without it, the embedded database in DATA_DIR,
// reached through the studio running there (operator channel) or, with none running, opened here.
import { existsSync, realpathSync } from 'node:fs'
import path from 'node:path'

/** Where the command's environment says it must act. */
export type OperatorTarget = { kind: 'postgres'; connectionString: string } | { kind: 'embedded'; dataDir: string }

/** A database as a studio describes itself over its operator channel (never a password). */
export type StudioDatabase = { kind: 'embedded'; dataDir: string } | { kind: 'postgres'; description: string }

/** Who answers on an operator channel: enough for an operator to tell one studio from another. */
export interface StudioIdentity {
  publicUrl: string
  pid: number
  database: StudioDatabase
}

export function operatorTarget(env: { DATABASE_URL?: string; dataDir: string }): OperatorTarget {
  return env.DATABASE_URL ? { kind: 'postgres', connectionString: env.DATABASE_URL } : { kind: 'embedded', dataDir: env.dataDir }
}

/** A folder as the operator would type it: ./data under the working directory, else absolute. */
function shownFolder(folder: string): string {
  const relative = path.relative(process.cwd(), folder)
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? `./${relative}` : folder
}

export function describeEmbedded(dataDir: string): string {
  return `the embedded database in ${shownFolder(dataDir)}`
}

/**
 * "PostgreSQL postgres://facet@db:5432/facet (password hidden)": the user, host, port and database of
 * a connection URL, and the socket folder when it names one; the password and every other parameter
 * (which may hold secrets: sslpassword, sslkey) are left out.
 */
export function describePostgres(connectionString: string): string {
  let url: URL
  try {
    url = new URL(connectionString)
  } catch {
    return 'PostgreSQL (DATABASE_URL is not a URL, so it is not shown)'
  }
  const hadPassword = Boolean(url.password) || url.searchParams.has('password')
  const socketFolder = url.searchParams.get('host')
  const user = url.username ? `${url.username}@` : ''
  const shown = `${url.protocol}//${user}${url.host}${url.pathname}${socketFolder ? `?host=${socketFolder}` : ''}`
  return `PostgreSQL ${shown}${hadPassword ? ' (password hidden)' : ''}`
}

export function describeStudioDatabase(database: StudioDatabase): string {
  return database.kind === 'embedded' ? describeEmbedded(database.dataDir) : database.description
}

/** The same folder however it was written (relative, through a symbolic link). */
function sameFolder(a: string, b: string): boolean {
  const real = (folder: string) => (existsSync(folder) ? realpathSync(folder) : path.resolve(folder))
  return real(a) === real(b)
}

/**
 * Why a studio must not run a command meant for the embedded database in `dataDir`, or null when it
 * may. A studio is only ever asked for the embedded database: with DATABASE_URL the command goes to
 * PostgreSQL directly, never through a socket.
 */
export function studioMismatch(studio: StudioIdentity, dataDir: string, socketPath: string): string | null {
  if (studio.database.kind === 'embedded' && sameFolder(studio.database.dataDir, dataDir)) return null
  return (
    `The studio answering on ${shownFolder(socketPath)} (${studio.publicUrl}, pid ${studio.pid}) uses ` +
    `${describeStudioDatabase(studio.database)}, but this command's environment names ${describeEmbedded(dataDir)} ` +
    `(DATABASE_URL is unset). Nothing was changed. Set DATABASE_URL to that studio's database to act on it, or ` +
    `DATA_DIR to the data folder of the studio you mean.`
  )
}

/** Where a command's change went, for its output. */
export function describeStudio(studio: StudioIdentity, socketPath: string): string {
  return `the studio at ${studio.publicUrl} (pid ${studio.pid}, through ${shownFolder(socketPath)}), on ${describeStudioDatabase(studio.database)}`
}
