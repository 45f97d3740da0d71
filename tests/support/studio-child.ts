// A studio process of its own for fault tests (docs/decisions/177): what `npm start` runs (migrations, the
// job worker beside the web, server.ts's Express application with every middleware) on the database its
// environment names (PGlite in DATA_DIR by default), serving the route modules below. Prints one JSON line,
// {"listening": port}, once it accepts connections. Killed by the test (SIGKILL is the point).
import { getDb } from '~/db/db.server'
import { migrateToLatest } from '~/db/migrate.server'
import '~/features/wiring.server'
import { processRole } from '~/features/jobs/roles.server'
import { startJobWorker } from '~/features/jobs/worker.server'
import * as jobs from '~/routes/api.jobs._index'
import * as removeBg from '~/routes/api.remove-bg'
import * as readyz from '~/routes/readyz'
import { startStudio } from './studio-server'

await migrateToLatest(getDb())
if (processRole() !== 'web') await startJobWorker()
const studio = await startStudio({ 'api/remove-bg': removeBg, 'api/jobs': jobs, readyz })
console.log(JSON.stringify({ listening: studio.port }))
