// The HTTP bench's account, written before the server starts (PGlite allows one process per data
// folder): the database of DATA_DIR or DATABASE_URL migrated, a user with a session and credits.
// Prints {token} as JSON. Run by bench/http.ts: node --import tsx bench/http-prepare.ts <credits>
import { getDb } from '../app/db/db.server'
import { migrateToLatest } from '../app/db/migrate.server'
import { createSession } from '../app/features/auth/session.server'
import { resolveCaller } from '../app/features/account/caller.server'
import { grant } from '../app/features/credits/ledger.server'

const credits = Number(process.argv[2] ?? 1000)
await migrateToLatest(getDb())
const user = await getDb()
  .insertInto('users')
  .values({ email: `bench-${Date.now()}@example.test`, password_hash: 'x', first_name: 'Ben', last_name: 'Ch', email_verified_at: new Date() })
  .returning('id')
  .executeTakeFirstOrThrow()
const { token } = await createSession(user.id)
const resolved = await resolveCaller(new Request('http://localhost/', { headers: { authorization: `Token ${token}` } }))
if (resolved.kind !== 'caller') throw new Error(`no caller: ${resolved.kind}`)
await grant({ accountId: resolved.caller.accountId, amount: credits, kind: 'adjustment', description: 'bench' })
await getDb().destroy()
console.log(JSON.stringify({ token }))
process.exit(0)
