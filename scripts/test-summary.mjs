// Prints one closing line over every runner's results: "tests: N passed, N failed, N skipped".
import { existsSync, readFileSync } from 'node:fs'

let passed = 0
let failed = 0
let skipped = 0
const [vitestFile, playwrightFile] = process.argv.slice(2)

if (vitestFile && existsSync(vitestFile)) {
  const v = JSON.parse(readFileSync(vitestFile, 'utf8'))
  passed += v.numPassedTests
  failed += v.numFailedTests
  skipped += v.numPendingTests + v.numTodoTests
} else failed += 1

// Without a PostgreSQL the integration files ran once (PGlite) instead of twice: the missing half is
// counted as skipped, with the reason, rather than vanishing from the count.
const postgresMissing = process.env.POSTGRES_SKIPPED_REASON
if (postgresMissing && vitestFile && existsSync(vitestFile)) {
  const integration = /\.integration\.test\.tsx?$/
  const files = JSON.parse(readFileSync(vitestFile, 'utf8')).testResults ?? []
  const missing = files.filter((f) => integration.test(f.name)).reduce((n, f) => n + f.assertionResults.length, 0)
  skipped += missing
  console.log(`PostgreSQL integration tests not run (${missing} counted as skipped): ${postgresMissing}`)
}

if (playwrightFile && existsSync(playwrightFile)) {
  const s = JSON.parse(readFileSync(playwrightFile, 'utf8')).stats
  passed += s.expected + s.flaky
  failed += s.unexpected
  skipped += s.skipped
} else failed += 1

console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
