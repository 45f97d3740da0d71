// Prints one closing line over every runner's results: "tests: N passed, N failed, N skipped".
import { existsSync, readFileSync } from 'node:fs'

let passed = 0
let failed = 0
let skipped = 0
const [vitestFile, playwrightFile] = process.argv.slice(2)
/** Every skipped test by name, with its reason where the runner records one: a skip never passes unseen. */
const skippedTests = []
/** Every failed test by name with the first line of its error, printed just above the closing line: CI
 * keeps only the end of a run's output, and a failure must be readable there. */
const failedTests = []
const firstLine = (message) => String(message ?? '').replace(/\u001b\[[0-9;]*m/g, '').split('\n').find((l) => l.trim())?.trim().slice(0, 300) ?? ''

if (vitestFile && existsSync(vitestFile)) {
  const v = JSON.parse(readFileSync(vitestFile, 'utf8'))
  passed += v.numPassedTests
  failed += v.numFailedTests
  skipped += v.numPendingTests + v.numTodoTests
  for (const file of v.testResults ?? []) {
    // A file that failed before its tests ran (an import error, a hook that threw) has no failed test to name.
    if (file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed')) {
      failedTests.push(`${file.name.replace(`${process.cwd()}/`, '')}: ${firstLine(file.message)}`)
      failed += 1
    }
    for (const t of file.assertionResults ?? []) {
      if (t.status === 'failed') {
        failedTests.push(`${file.name.replace(`${process.cwd()}/`, '')} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`)
      }
      if (t.status === 'pending' || t.status === 'skipped' || t.status === 'todo') {
        skippedTests.push(`${file.name.replace(`${process.cwd()}/`, '')} > ${t.fullName}: ${t.status === 'todo' ? 'marked todo' : 'skipped in the test (see its condition)'}`)
      }
    }
  }
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
  const report = JSON.parse(readFileSync(playwrightFile, 'utf8'))
  const s = report.stats
  passed += s.expected + s.flaky
  failed += s.unexpected
  skipped += s.skipped
  const visit = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status === 'unexpected') {
          const error = t.results?.at(-1)?.error?.message
          failedTests.push(`${[...titles, spec.title].join(' > ')} [${t.projectName}]: ${firstLine(error)}`)
        }
        if (t.status !== 'skipped') continue
        const reason = (t.annotations ?? []).find((a) => a.type === 'skip')?.description ?? 'skipped without a reason'
        skippedTests.push(`${[...titles, spec.title].join(' > ')} [${t.projectName}]: ${reason}`)
      }
    }
    for (const child of suite.suites ?? []) visit(child, [...titles, child.title])
  }
  for (const suite of report.suites ?? []) visit(suite, [suite.title])
} else failed += 1

for (const line of skippedTests) console.log(`skipped: ${line}`)
for (const line of failedTests) console.log(`FAILED: ${line}`)

console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
