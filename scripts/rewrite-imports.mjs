// Rewrites imports after the house moves of issue 23 (docs/decisions/116): every import of a module that
// moved, whole or in part, is pointed at its new home. Run it over code written against the old paths
// (another branch merged after the moves): `node scripts/rewrite-imports.mjs [files or folders...]`
// (default: app, scripts, tests, bench, server.ts). It is idempotent: a second run changes nothing.
//
// A move is either a whole module (`from` -> `to`) or some of its exports (`symbols`): an import naming
// several exports is split into one import per new home. Both `~/...` and relative specifiers are read;
// a rewritten specifier keeps the style it had (relative stays relative). Anything the script cannot
// rewrite safely (a namespace import, a dynamic import or vi.mock of a module some of whose exports
// moved) is printed for a person to check.
import { readFileSync, writeFileSync, readdirSync, statSync, existsSync } from 'node:fs'
import path from 'node:path'

const repo = path.resolve(import.meta.dirname, '..')
const app = path.join(repo, 'app')

/** Module ids are paths under app/ without extension. Order matters: a symbol move before its module's whole move. */
export const MOVES = [
  // 1. account: who is calling, who pays, the one charge, the guards (decision 116)
  {
    from: 'features/auth/session.server',
    to: 'features/account/authentication.server',
    symbols: ['getAuthentication', 'authenticatedUser', 'Authentication'],
  },
  { from: 'features/credits/caller.server', to: 'features/account/caller.server' },
  { from: 'features/teams/charge.server', to: 'features/account/charge.server' },
  { from: 'features/credits/viewer.server', to: 'features/account/viewer.server' },
  { from: 'features/credits/costs.server', to: 'features/tools/costs.server' },
  { from: 'features/site/retention', to: 'catalog/retention' },
  { from: 'features/teams/headroom.server', to: 'features/account/headroom.server' },
  { from: 'features/viewer', to: 'features/account/viewer' },
  { from: 'features/credits/balance.server', to: 'features/account/balance.server' },
  { from: 'features/credits/credits-page.server', to: 'features/account/credits-page.server' },
  { from: 'features/auth/dashboard.server', to: 'features/account/dashboard.server' },
  { from: 'features/auth/guard.server', to: 'features/account/guards.server' },
  { from: 'features/console/guard.server', to: 'features/account/guards.server' },
  { from: 'features/api-keys/gate.server', to: 'features/account/guards.server', symbols: ['unauthorized'] },
  { from: 'features/api-keys/service.server', to: 'features/account/guards.server', symbols: ['requireApiUser', 'ApiCaller'] },
  { from: 'features/teams/api.server', to: 'features/account/guards.server', symbols: ['requireTeamApiUser', 'TeamApiCaller'] },
  { from: 'features/teams/api.server', to: 'features/teams/messages', symbols: ['TEAM_KEY_REFUSED'] },
  // It throws its refusal now: a caller's `if (!owner.ok) return owner.response` line goes (by hand).
  {
    from: 'features/webhooks/service.server',
    to: 'features/account/guards.server',
    symbols: ['requireWebhookOwner', 'WebhookOwner'],
    rename: { requireWebhookOwner: 'requireManagedAccount' },
  },
  // 2. app/http: body parsing, error answers, methodNotAllowed, cache headers (decision 117)
  { from: 'features/auth/api.server', to: 'features/account/views', symbols: ['publicUser'] },
  { from: 'features/auth/api.server', to: 'http/body.server', symbols: ['readBody', 'parseBody', 'BadRequest'] },
  { from: 'features/auth/api.server', to: 'http/errors.server' },
  { from: 'features/teams/api.server', to: 'http/headers', symbols: ['NO_STORE'] },
  {
    from: 'features/tools/errors.server',
    to: 'http/errors.server',
    symbols: ['methodNotAllowed'],
    rename: { methodNotAllowed: 'runMethodNotAllowed' },
  },
  // 4. arrows point down (decision 119)
  { from: 'features/tools/catalog', to: 'catalog/tools' },
  { from: 'features/batches/limits', to: 'catalog/batches' },
  ...['account-controls', 'brand', 'disclosure', 'footer', 'header', 'mobile-menu', 'nav', 'site-layout', 'working-as'].map((name) => ({
    from: `ui/layout/${name}`,
    to: `features/layout/${name}`,
  })),
  { from: 'root', to: 'features/layout/root-data', symbols: ['useRootData', 'RootLoaderData'] },
  { from: 'ui/legal-page', to: 'features/site/ui/legal-page' },
  { from: 'ui/testimonial-carousel', to: 'features/site/ui/testimonial-carousel' },
  { from: 'features/console/paging', to: 'utils/paging' },
  { from: 'features/credits/operator.server', to: 'features/operator/credits.server' },
  { from: 'features/teams/operator.server', to: 'features/operator/teams.server' },
  { from: 'features/observability/readiness.server', to: 'features/health/readiness.server' },
  { from: 'features/observability/probes.server', to: 'features/health/probes.server' },
  { from: 'features/observability/worker-listener.server', to: 'features/health/worker-listener.server' },
  { from: 'features/api-keys/developers.server', to: 'features/developers/developers.server' },
  { from: 'features/api-keys/ui/developers-section', to: 'features/developers/ui/developers-section' },
  { from: 'features/api-keys/service.server', to: 'features/api-keys/keys.server', symbols: ['publicKey'] },
  { from: 'features/api-keys/service.server', to: 'features/account/keys.server' },
  { from: 'features/tools/ui/page-action.server', to: 'features/tools/page-action.server' },
  { from: 'features/tools/ui/page-loader.server', to: 'features/tools/page-loader.server' },
  // 5. no cycle, none running back up (decision 170)
  { from: 'features/mcp/limits', to: 'catalog/mcp' },
  { from: 'features/corrections/ui/correct-link', to: 'features/tools/ui/correct-link' },
  { from: 'features/developers/developers.server', to: 'features/auth/redirect', symbols: ['DEVELOPERS_ANCHOR'] },
  { from: 'features/teams/roles', to: 'catalog/teams', symbols: ['MANAGER_ROLES'] },
  { from: 'catalog/batches', to: 'features/batches/messages', symbols: ['unpaidBatchMessage'] },
  { from: 'features/tools/models/matte.server', to: 'features/tools/models/regions', symbols: ['Regions'] },
  // 6. one door for every run (decision 180): the door (tools/jobs/door.server.ts, added on this branch), the
  // HTTP answer of a run out of the submission, the job platform a room of its own (features/jobs), the
  // request side left in tools.
  {
    from: 'features/tools/jobs/submit.server',
    to: 'features/jobs/answer.server',
    symbols: ['submissionResponse', 'tooSlowFields', 'answerFromJob', 'ToolSubmission', 'ToolRefusal', 'AcceptedJob', 'REPLAY_UNAVAILABLE', 'handedBackMessage', 'HANDED_BACK_RETRY_SECONDS'],
  },
  { from: 'features/tools/jobs/submit.server', to: 'features/jobs/door.server', symbols: ['requestFingerprint', 'idempotencyScope', 'KEY_REUSED_MESSAGE'] },
  { from: 'features/tools/jobs/submit.server', to: 'features/tools/submit.server' },
  { from: 'features/tools/jobs/api.server', to: 'features/tools/jobs-api.server' },
  { from: 'features/tools/jobs/test-mode.server', to: 'features/tools/test-mode.server' },
  { from: 'features/tools/ui/page-result', to: 'features/jobs/view', symbols: ['resultUrl', 'TOO_SLOW_CODE'] },
  { from: 'features/tools/models/model-choices', to: 'features/jobs/view', symbols: ['MODEL_HEADER'] },
  { from: 'features/tools/submission.server', to: 'http/headers', symbols: ['contentDisposition'] },
  { from: 'features/tools/runners/types', to: 'features/jobs/runner' },
  { from: 'features/tools/jobs/admission.server', to: 'features/jobs/admission.server' },
  { from: 'features/tools/jobs/answer.server', to: 'features/jobs/answer.server' },
  { from: 'features/tools/jobs/door.server', to: 'features/jobs/door.server' },
  { from: 'features/tools/jobs/events.server', to: 'features/jobs/events.server' },
  { from: 'features/tools/jobs/health.server', to: 'features/jobs/health.server' },
  { from: 'features/tools/jobs/inline.server', to: 'features/jobs/inline.server' },
  { from: 'features/tools/jobs/job-time.server', to: 'features/jobs/job-time.server' },
  { from: 'features/tools/jobs/jobs.server', to: 'features/jobs/jobs.server' },
  { from: 'features/tools/jobs/lifecycle.server', to: 'features/jobs/lifecycle.server' },
  { from: 'features/tools/jobs/outcome.server', to: 'features/jobs/outcome.server' },
  { from: 'features/tools/jobs/progress', to: 'features/jobs/progress' },
  { from: 'features/tools/jobs/queue.server', to: 'features/jobs/queue.server' },
  { from: 'features/tools/jobs/ready-mail.server', to: 'features/jobs/ready-mail.server' },
  { from: 'features/tools/jobs/roles.server', to: 'features/jobs/roles.server' },
  { from: 'features/tools/jobs/run-path.server', to: 'features/jobs/run-path.server' },
  { from: 'features/tools/jobs/run-state', to: 'features/jobs/run-state' },
  { from: 'features/tools/jobs/runners.server', to: 'features/jobs/runners.server' },
  { from: 'features/tools/jobs/slots', to: 'features/jobs/slots' },
  { from: 'features/tools/jobs/trace.server', to: 'features/jobs/trace.server' },
  { from: 'features/tools/jobs/view', to: 'features/jobs/view' },
  { from: 'features/tools/jobs/wait.server', to: 'features/jobs/wait.server' },
  { from: 'features/tools/jobs/worker.server', to: 'features/jobs/worker.server' },
  { from: 'features/tools/errors.server', to: 'features/jobs/errors.server' },
  { from: 'features/tools/results.server', to: 'features/jobs/results.server' },
  { from: 'features/tools/result-links.server', to: 'features/jobs/result-links.server' },
  { from: 'features/tools/runs.server', to: 'features/jobs/runs.server' },
  { from: 'features/tools/run-rates.server', to: 'features/jobs/run-rates.server' },
  { from: 'features/tools/run-time', to: 'features/jobs/run-time' },
  { from: 'features/tools/run-time-left', to: 'features/jobs/run-time-left' },
  // 7. after the merge of the job platform's room: the storage check lives beside the outcome it watches
  { from: 'features/tools/storage-health.server', to: 'features/jobs/storage-health.server' },
]

const moveOf = new Map()
for (const move of MOVES) {
  const list = moveOf.get(move.from) ?? []
  list.push(move)
  moveOf.set(move.from, list)
}

const SOURCE = /\.(ts|tsx|mjs|js)$/

function walk(target) {
  if (!existsSync(target)) return []
  if (statSync(target).isFile()) return SOURCE.test(target) ? [target] : []
  return readdirSync(target).flatMap((name) => (name === 'node_modules' || name === 'build' ? [] : walk(path.join(target, name))))
}

/** The module id an import specifier names, or null when it is not under app/. */
function moduleId(file, spec) {
  let target
  if (spec.startsWith('~/')) target = path.join(app, spec.slice(2))
  else if (spec.startsWith('.')) target = path.resolve(path.dirname(file), spec)
  else return null
  if (!target.startsWith(app + path.sep)) return null
  return path.relative(app, target).split(path.sep).join('/').replace(/\.(tsx?|mjs|js)$/, '')
}

/** A specifier for `id` written the way `spec` was (`~/` or relative to `file`). */
function specFor(file, spec, id) {
  if (spec.startsWith('~/')) return `~/${id}`
  let rel = path.relative(path.dirname(file), path.join(app, id)).split(path.sep).join('/')
  if (!rel.startsWith('.')) rel = `./${rel}`
  return rel
}

function symbolName(specifier) {
  return specifier.replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim()
}

/** Where one export of `id` lives now. */
function destination(id, name) {
  for (const move of moveOf.get(id) ?? []) {
    if (!move.symbols || move.symbols.includes(name)) return move.to
  }
  return id
}

const NAMED = /(^|\n)([ \t]*)(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*(['"])([^'"]+)\6;?/g
const OTHER = /(['"])([^'"\n]+)\1/g

export function rewrite(file, text) {
  const problems = []
  const renamed = new Map()
  let out = text.replace(NAMED, (whole, lead, indent, keyword, typeOnly, list, quote, spec) => {
    const id = moduleId(file, spec)
    if (!id || !moveOf.has(id)) return whole
    const specifiers = list.split(',').map((s) => s.trim()).filter(Boolean)
    const groups = new Map()
    for (let specifier of specifiers) {
      const name = symbolName(specifier)
      const to = destination(id, name)
      const rename = MOVES.find((m) => m.from === id && m.to === to && m.rename?.[name])?.rename[name]
      if (rename) {
        renamed.set(name, rename)
        specifier = specifier.replace(name, rename)
      }
      if (!groups.has(to)) groups.set(to, [])
      groups.get(to).push(specifier)
    }
    const multiline = list.includes('\n')
    const semi = whole.trimEnd().endsWith(';') ? ';' : ''
    return (
      lead +
      [...groups]
        .map(([to, names]) => {
          const body = multiline ? `{\n${names.map((n) => `${indent}  ${n},`).join('\n')}\n${indent}}` : `{ ${names.join(', ')} }`
          return `${indent}${keyword}${typeOnly ?? ''} ${body} from ${quote}${specFor(file, spec, to)}${quote}${semi}`
        })
        .join('\n')
    )
  })
  out = out.replace(OTHER, (whole, quote, spec, offset) => {
    if (!spec.startsWith('~/') && !spec.startsWith('.')) return whole
    // A named import or export the first pass left where it was (its exports did not move).
    if (/\}\s*from\s*$/.test(out.slice(Math.max(0, offset - 40), offset))) return whole
    const id = moduleId(file, spec)
    if (!id || !moveOf.has(id)) return whole
    const moves = moveOf.get(id)
    const whole_ = moves.find((m) => !m.symbols)
    if (moves.some((m) => m.symbols)) {
      problems.push(`${path.relative(repo, file)}: ${spec} (some of its exports moved: check this use by hand)`)
      return whole
    }
    return `${quote}${specFor(file, spec, whole_.to)}${quote}`
  })
  for (const [from, to] of renamed) out = out.replace(new RegExp(`\\b${from}\\b`, 'g'), to)
  return { text: out, problems }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const targets = process.argv.slice(2)
  const roots = (targets.length ? targets : ['app', 'scripts', 'tests', 'bench', 'server.ts']).map((t) => path.resolve(repo, t))
  let changed = 0
  const problems = []
  for (const file of roots.flatMap(walk)) {
    if (file === path.join(repo, 'scripts', 'rewrite-imports.mjs')) continue
    const text = readFileSync(file, 'utf8')
    const result = rewrite(file, text)
    problems.push(...result.problems)
    if (result.text !== text) {
      writeFileSync(file, result.text)
      changed++
    }
  }
  console.log(`rewrite-imports: ${changed} files changed`)
  for (const problem of problems) console.log(`check: ${problem}`)
}
