// npm run db:migrate: brings the configured database (PGlite or DATABASE_URL) to the latest migration.
import { getDb } from '../app/db/db.server'
import { migrateToLatest } from '../app/db/migrate.server'

const result = await migrateToLatest(getDb())
const applied = result.results?.filter((r) => r.status === 'Success').map((r) => r.migrationName) ?? []
console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database already up to date.')
await getDb().destroy()
