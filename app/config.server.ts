// Every setting the studio reads from its environment, validated once. Nothing else reads process.env.
import { randomBytes } from 'node:crypto'
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { z } from 'zod'
import { MAX_BATCH_FILES } from './catalog/batches'


const booleanFlag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no'])
  .transform((v) => v === '1' || v === 'true' || v === 'yes')

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  // Loopback by default: a studio started on a laptop is not offered to the whole network. The Docker
  // image and the deploy docs set 0.0.0.0 (or a proxy's address) on purpose.
  HOST: z.string().default('127.0.0.1'),
  /** Unset: the address the studio listens on (defaultPublicUrl). */
  PUBLIC_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().optional(),
  SESSION_SECRET: z.string().min(32, 'SESSION_SECRET must be at least 32 characters').optional(),
  RESULTS_KEY: z
    .string()
    .regex(/^[0-9a-f]{64}$/i, 'RESULTS_KEY must be 64 hex characters (32 bytes)')
    .optional(),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Facet Studio <no-reply@facet.studio>'),
  OPERATOR_EMAIL: z.string().email().optional(),
  SUPPORT_EMAIL: z.string().email().default('support@facet.studio'),
  STATUS_PAGE_URL: z.string().url().default('https://status.facet.studio'),
  MODELS_DIR: z.string().default('./models'),
  /** A local folder `npm run models` copies model files from instead of downloading them. */
  MODELS_FROM: z.string().optional(),
  /** Tool jobs this process runs at once; 0 makes a web-only process. Default: half the cores, at least 1. */
  WORKER_CONCURRENCY: z.coerce.number().int().min(0).max(64).optional(),
  /** Fair share: jobs of one account running at once, over every worker (pg-boss group concurrency). */
  JOBS_PER_ACCOUNT: z.coerce.number().int().min(1).max(64).default(2),
  TOOL_QUEUE_LIMIT: z.coerce.number().int().min(0).max(1000).default(8),
  TOOL_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
  /**
   * How often pg-boss expects a heartbeat from a running job's worker: a worker silent this long is taken
   * for dead and its run handed to another. Not pg-boss's minimum (10) by default: parts of a run (the
   * enhancer's weight blend, pixel loops) hold the event loop for seconds on a busy machine, and a missed
   * heartbeat would hand a live run to a second worker. The same value in every process (the queue keeps one).
   */
  JOB_HEARTBEAT_SECONDS: z.coerce.number().int().min(10).max(3600).default(30),
  /**
   * A synchronous run whose estimated time (run-time.ts) is under this many milliseconds runs inline:
   * in the request's process, without a pg-boss job, charged in its outcome's transaction
   * (docs/decisions/176). 0 sends every run through the queue.
   */
  INLINE_RUN_MS: z.coerce.number().int().min(0).max(3_600_000).default(1_000),
  /**
   * Readiness fails (503, saying why) while DATA_DIR's filesystem has less than this many MB free: PGlite's
   * database lives there (docs/decisions/177). 0 turns the check off.
   */
  STORAGE_MIN_FREE_MB: z.coerce.number().int().min(0).max(100_000_000).default(100),
  /** A batch's whole upload (its files, or its zip and the zip's unpacked contents), in megabytes. */
  BATCH_MAX_MEGABYTES: z.coerce.number().int().min(1).max(4096).default(200),
  TOOL_COSTS: z.string().optional(),
  /** The face restorer's price while it runs in Standard detail (no usable GFPGAN); unset: half the restorer's price, rounded down. */
  FACE_RESTORER_STANDARD_COST: z.coerce.number().int().min(0).max(1000).optional(),
  SVG_RENDERERS: z.coerce.number().int().min(1).max(16).default(2),
  SVG_RENDER_TIMEOUT_MS: z.coerce.number().int().min(10).default(30_000),
  SVG_RENDERER_MEMORY_MB: z.coerce.number().int().min(256).max(65_536).default(1024),
  SVG_RENDERER_MAX_RENDERS: z.coerce.number().int().min(1).default(500),
  GUEST_DAILY_CREDITS: z.coerce.number().int().min(0).default(5),
  USER_DAILY_FLOOR: z.coerce.number().int().min(0).default(10),
  SIGNUP_BONUS: z.coerce.number().int().min(0).default(50),
  /** Seats (members + pending invites) a new team gets; an operator changes a team's with `team-seats`. */
  TEAM_SEAT_LIMIT: z.coerce.number().int().min(1).max(10_000).default(5),
  PURCHASING_PAUSED: booleanFlag.default(true),
  TRUST_PROXY: z.string().default('false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMITS: booleanFlag.default(true),
  /** Requests per minute one API key may make to /api. */
  API_KEY_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(120),
  /** Let webhooks reach private, loopback and link-local addresses (tests, closed networks). */
  WEBHOOKS_ALLOW_PRIVATE: booleanFlag.default(false),
  // Operator console (/console) and audit log.
  /** Comma-separated emails of the accounts that may open /console; unset: nobody (it answers 404). */
  OPERATOR_EMAILS: z
    .string()
    .default('')
    .transform((raw) => raw.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean))
    .pipe(z.array(z.string().email('OPERATOR_EMAILS must be comma-separated email addresses'))),
  // Model choice (issue 20, part B)
  /** Load models whose weights are not licensed for commercial use (GFPGAN). Off: they count as not available. */
  ALLOW_NONCOMMERCIAL_MODELS: booleanFlag.default(false),
  // Queue admission (issue 19): one account's share of the waiting runs, and the batch items' own queue.
  /** Single runs one account may have waiting; unset: half of TOOL_QUEUE_LIMIT, at least 1 (admission.server.ts). */
  JOBS_WAITING_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).optional(),
  /** Batch items that may wait, over all batches (one account: half of it, at least a full batch, which it must hold). */
  BATCH_QUEUE_LIMIT: z.coerce.number().int().min(MAX_BATCH_FILES).max(100_000).default(1000),
  // Visitors (issue 19, decision 080): guest identities per client address and day, guest runs, API sign-up.
  /** Visitor identities with their own allowance per client address (IPv6: per /64) and UTC day. */
  /** Sign-up attempts one client address may make an hour (auth/rate-limits.server.ts). */
  SIGN_UPS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(50),
  GUEST_IDENTITIES_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(3),
  /** `off`: visitors cannot run tools at all (sign-up required). */
  GUEST_RUNS: z.enum(['on', 'off']).default('on'),
  /** `true`: /api runs without an account (no key, no token, no visitor cookie) answer 401. */
  API_REQUIRES_SIGNUP: booleanFlag.default(false),
  // --- Observability: metrics, traces (docs/decisions/105, 107) ---
  /** Bearer token that opens /metrics to scrapers that are not on this machine; unset: loopback only. */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  /** `npm run worker` only: serve /metrics, /livez and /readyz on this port (a worker has no web server). */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** OTLP/HTTP collector address (http://host:4318); set, the studio sends OpenTelemetry traces there. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** The service name on those traces. */
  OTEL_SERVICE_NAME: z.string().default('facet-studio'),
})

export type Config = Omit<z.infer<typeof schema>, 'PUBLIC_URL'> & {
  /** PUBLIC_URL as set, else the address the studio listens on (defaultPublicUrl). */
  PUBLIC_URL: string
  dataDir: string
  modelsDir: string
  sessionSecret: string
  resultsKey: Buffer
  /** WORKER_CONCURRENCY resolved: 0 means this process runs no jobs. */
  workerConcurrency: number
  toolCosts: Record<string, number>
  secureCookies: boolean
  /** TRUST_PROXY as Express's `trust proxy` takes it: hops to trust (0 = none) or the proxies' addresses. */
  trustProxy: TrustProxy
  /** Set when PUBLIC_URL was left unset while the server listens on every interface (production). */
  publicUrlWarning: string | null
}

/** How many proxies sit in front of the studio, or which addresses are proxies. */
export type TrustProxy = number | string[]

/** Names proxy-addr (Express's `trust proxy`) understands for whole address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true
  const [address, prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (!family || rest.length) return false
  if (prefix === undefined) return true
  if (isIP(prefix)) return true // a netmask such as 255.255.255.0
  const bits = Number(prefix)
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128)
}

/**
 * TRUST_PROXY: `false` (or 0) trusts no proxy: the client address is the connection's. A number
 * trusts that many hops in front of the studio; a comma-separated list trusts those addresses,
 * CIDR ranges or the names loopback, linklocal, uniquelocal. Either way the client address is the
 * one the nearest untrusted hop reported, never what the client wrote at the left of
 * X-Forwarded-For. `true` means one hop: trusting every hop is what let a client forge its address.
 */
export function parseTrustProxy(raw: string): TrustProxy {
  const value = raw.trim().toLowerCase()
  if (['', 'false', 'no', '0'].includes(value)) return 0
  if (['true', 'yes'].includes(value)) return 1
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    if (hops > 32) throw new Error(`TRUST_PROXY: ${hops} hops is not a believable proxy chain (at most 32)`)
    return hops
  }
  const entries = value.split(',').map((e) => e.trim()).filter(Boolean)
  const bad = entries.filter((e) => !isProxyAddress(e))
  if (!entries.length || bad.length) {
    throw new Error(
      `TRUST_PROXY: cannot read ${JSON.stringify(bad.join(',') || raw)} (want false, a number of proxies, or addresses/CIDRs such as 10.0.0.0/8,loopback)`,
    )
  }
  return entries
}

/**
 * A secret the operator did not set, made once and kept in DATA_DIR, so sessions and stored results
 * survive restarts (instances on different machines sharing one database must set it). Processes that
 * start together on one folder must all end up with the same value: the file is written aside and then
 * hard-linked into place, which fails if another process got there first (its value is then the one
 * read). Written in place, a second process could read it half-written (an empty key: every result
 * sealed with it failed) or write its own over it (decision 193).
 */
function persistentSecret(dataDir: string, name: string, make: () => string, check: z.ZodTypeAny): string {
  const file = path.join(dataDir, name)
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true })
    const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`
    writeFileSync(draft, make() + '\n', { mode: 0o600 })
    try {
      linkSync(draft, file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    } finally {
      rmSync(draft, { force: true })
    }
  }
  const value = readFileSync(file, 'utf8').trim()
  const checked = check.safeParse(value)
  if (!checked.success) {
    throw new Error(`Invalid configuration: ${file}: ${checked.error.issues[0]?.message} (remove the file to have a new one made)`)
  }
  return value
}

function parseToolCosts(raw: string | undefined): Record<string, number> {
  if (!raw) return {}
  const costs: Record<string, number> = {}
  for (const pair of raw.split(',')) {
    const [slug, value] = pair.split('=').map((s) => s.trim())
    const n = Number(value)
    if (!slug || !Number.isInteger(n) || n < 0) throw new Error(`TOOL_COSTS: cannot read "${pair}" (want slug=integer)`)
    costs[slug] = n
  }
  return costs
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
    throw new Error(`Invalid configuration: ${problems}`)
  }
  const c = parsed.data
  const dataDir = path.resolve(c.DATA_DIR)
  return {
    ...c,
    PUBLIC_URL: c.PUBLIC_URL ?? defaultPublicUrl(c.HOST, c.PORT),
    dataDir,
    modelsDir: path.resolve(c.MODELS_DIR),
    sessionSecret:
      c.SESSION_SECRET ??
      persistentSecret(dataDir, 'session-secret', () => randomBytes(32).toString('hex'), schema.shape.SESSION_SECRET.unwrap()),
    resultsKey: Buffer.from(
      c.RESULTS_KEY ?? persistentSecret(dataDir, 'results-key', () => randomBytes(32).toString('hex'), schema.shape.RESULTS_KEY.unwrap()),
      'hex',
    ),
    workerConcurrency: c.WORKER_CONCURRENCY ?? Math.max(1, Math.floor(os.availableParallelism() / 2)),
    toolCosts: parseToolCosts(c.TOOL_COSTS),
    secureCookies: (c.PUBLIC_URL ?? '').startsWith('https://'),
    trustProxy: parseTrustProxy(c.TRUST_PROXY),
    publicUrlWarning: publicUrlWarning(c, c.PUBLIC_URL !== undefined),
  }
}

/** Hosts that mean "every interface": the address users reach cannot be told from them. */
const WILDCARD_HOSTS = ['0.0.0.0', '::']
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1']

/**
 * The address mail links and the CSRF origin check use when PUBLIC_URL is unset: the one the studio
 * listens on, so `PORT=8080 npm start` mails links to :8080. A wildcard or loopback host is written
 * `localhost`, the name a browser on the same machine uses.
 */
export function defaultPublicUrl(host: string, port: number): string {
  const name = WILDCARD_HOSTS.includes(host) || LOOPBACK_HOSTS.includes(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host
  return `http://${name}:${port}`
}

/**
 * A production server listening on every interface is reached under some name of its own: links to
 * localhost would reach nobody, silently. Say so instead (the log at start, and /healthz).
 */
export function publicUrlWarning(c: { NODE_ENV: string; PORT: number; HOST: string }, publicUrlSet: boolean): string | null {
  if (c.NODE_ENV !== 'production' || publicUrlSet || !WILDCARD_HOSTS.includes(c.HOST)) return null
  return `PUBLIC_URL is not set, so mail links point to ${defaultPublicUrl(c.HOST, c.PORT)} while the studio listens on every interface (${c.HOST}:${c.PORT}). Set PUBLIC_URL to the address users reach.`
}

let cached: Config | undefined
export function config(): Config {
  cached ??= readConfig()
  return cached
}

/** Tests change the environment and then ask for a fresh read. */
export function resetConfigForTests(): void {
  cached = undefined
}
