// The tables as Kysely sees them. Each table is created by its own file in migrations/.
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely'

type CreatedAt = ColumnType<Date, Date | string | undefined, never>
type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json = ColumnType<unknown, string, string>

export interface UsersTable {
  id: Generated<string>
  email: string
  first_name: string | null
  last_name: string | null
  password_hash: string
  email_verified_at: Timestamp | null
  created_at: CreatedAt
  updated_at: Generated<Date>
  /** Set when the owner deleted the account (migrations/0132, decision 171): the row is anonymised, its ledger kept. */
  deleted_at: Generated<Date | null>
}

export interface SessionsTable {
  id: Generated<string>
  user_id: string
  token_hash: string
  created_at: CreatedAt
  expires_at: Timestamp
  revoked_at: Timestamp | null
  user_agent: string | null
  /** The team this browser session works as (null: the user's own balance). */
  working_team_id: Generated<string | null>
}

/** Single-use mailed tokens: email verification and password reset. */
export interface UserTokensTable {
  id: Generated<string>
  user_id: string
  purpose: 'verify_email' | 'reset_password'
  token_hash: string
  created_at: CreatedAt
  expires_at: Timestamp
  used_at: Timestamp | null
  /** A hash of the sign-up browser's key (migrations/0131, decision 162); null for other tokens. */
  browser_hash: Generated<string | null>
}

export interface VisitorsTable {
  id: Generated<string>
  created_at: CreatedAt
  /** Set on an address's shared visitor: every browser past the address's identity budget (decision 080). */
  shared_address: Generated<string | null>
}

/** Guest identities minted and guest credits granted per client address (IPv4, or IPv6 /64) and UTC day. */
export interface GuestAddressDaysTable {
  address: string
  day: string
  identities: Generated<number>
  credits: Generated<number>
}

export interface CreditAccountsTable {
  id: Generated<string>
  user_id: string | null
  visitor_id: string | null
  /** A team's account: exactly one of user_id, visitor_id, team_id is set. */
  team_id: Generated<string | null>
  balance: number
  lifetime_spent: Generated<number>
  /** UTC day (YYYY-MM-DD) of the last daily refresh: the refresh happens at most once a day. */
  last_refresh_day: string | null
  created_at: CreatedAt
  updated_at: Generated<Date>
}

export type CreditKind = 'purchase' | 'consume' | 'adjustment' | 'bonus'

export interface CreditTransactionsTable {
  id: Generated<number>
  account_id: string
  kind: CreditKind
  delta: number
  balance_after: number
  description: string | null
  tool_slug: string | null
  idempotency_key: string | null
  /** Set on a refund: the charge it reverses (unique, so a charge is refunded once). */
  reverses_id: number | null
  /** The API key the charge was made with (per-key spend). */
  api_key_id: Generated<string | null>
  /** On a team account's charges and refunds: the member who ran the tool. */
  user_id: Generated<string | null>
  created_at: CreatedAt
}

export interface CreditPackagesTable {
  id: string
  credits: number
  price_cents: number
  label: string | null
  sort_order: number
  active: Generated<boolean>
}

export interface ToolRunsTable {
  id: Generated<string>
  tool: string
  account_id: string | null
  outcome: 'success' | 'failed' | 'no_face' | 'rejected'
  error: string | null
  duration_ms: number
  model_ms: number | null
  input_bytes: number | null
  input_width: number | null
  input_height: number | null
  output_bytes: number | null
  /** The API key the run was made with (per-key run counts). */
  api_key_id: Generated<string | null>
  /** The model that made the result, for tools with a choice of models (the background remover). */
  model: Generated<string | null>
  created_at: CreatedAt
}

export interface ResultsTable {
  id: Generated<string>
  owner_account_id: string
  content_type: string
  filename: string
  iv: Buffer
  auth_tag: Buffer
  ciphertext: Buffer
  /** What the run reported besides its bytes: { facesFound?, gfpganAvailable? }. */
  run_details: Json | null
  created_at: CreatedAt
  expires_at: Timestamp
}

/** A result's small picture (migrations/0110), sealed like the result; deleted with it. */
export interface ResultThumbnailsTable {
  result_id: string
  content_type: string
  iv: Buffer
  auth_tag: Buffer
  ciphertext: Buffer
  created_at: CreatedAt
}

/** What correcting a result needs (migrations/0130, decision 157): the run's source sealed, the corrections apart. */
export interface ResultEditsTable {
  job_id: string
  account_id: string
  kind: 'cutout' | 'faces'
  facts: Json
  iv: Buffer
  auth_tag: Buffer
  ciphertext: Buffer
  corrections: Json | null
  mask_iv: Buffer | null
  mask_auth_tag: Buffer | null
  mask_ciphertext: Buffer | null
  created_at: CreatedAt
  corrected_at: Timestamp | null
  expires_at: Timestamp
}

/** "This result is wrong" (migrations/0133, decision 175): the case and the note sealed, the facts open. */
export interface ResultFeedbackTable {
  job_id: string
  account_id: string
  tool: string
  facts: Json
  iv: Buffer
  auth_tag: Buffer
  ciphertext: Buffer
  note_iv: Buffer | null
  note_auth_tag: Buffer | null
  note_ciphertext: Buffer | null
  created_at: CreatedAt
  updated_at: Timestamp
  expires_at: Timestamp
}

export type ToolJobStatus = 'queued' | 'running' | 'succeeded' | 'failed'

export interface ToolJobsTable {
  id: string
  account_id: string
  tool: string
  /** The runner's parsed options (plain JSON). */
  options: Json
  original_name: string
  /** The upload, AES-256-GCM under RESULTS_KEY; null once the job has ended. */
  upload_iv: Buffer | null
  upload_auth_tag: Buffer | null
  upload_ciphertext: Buffer | null
  input_bytes: number
  input_width: number | null
  input_height: number | null
  /** What inspect told the caller (X-Facet-Note parts). */
  notes: Json
  idempotency_key: string | null
  /** Whose key it is: environment and credential, e.g. `live:key:<id>` (decision 081). */
  idempotency_scope: Generated<string | null>
  /** sha256 of tool, options and file bytes: the same key with another request answers 422. */
  request_fingerprint: string
  /** The charge; null for a test key's job, and for a batch item until a worker starts it. */
  charge_transaction_id: number | null
  /** The API key the job was sent with. */
  api_key_id: string | null
  /** Sent with a test key: never charged, the result capped at TEST_RESULT_MAX_PIXELS. */
  test_mode: Generated<boolean>
  /** The batch this job is an item of, and its place in it. */
  batch_id: string | null
  batch_position: number | null
  /** The signed-in user who sent the job (the member, when a team pays). */
  user_id: Generated<string | null>
  /** A composed cutout's size and subject box ({width, height, foreground}), when the remover composed one. */
  cutout_layout: Json | null
  status: Generated<ToolJobStatus>
  progress: Generated<number>
  stage: string | null
  attempts: Generated<number>
  outcome: 'success' | 'failed' | 'no_face' | null
  refunded: Generated<boolean>
  result_id: string | null
  filename: string | null
  faces_found: number | null
  gfpgan_available: boolean | null
  note: string | null
  /** The model that made the result, for tools with a choice of models (the background remover). */
  model: Generated<string | null>
  error: string | null
  error_status: number | null
  created_at: CreatedAt
  started_at: Timestamp | null
  heartbeat_at: Timestamp | null
  finished_at: Timestamp | null
}

export interface BatchesTable {
  id: string
  account_id: string
  api_key_id: string | null
  tool: string
  total: number
  /** The zip entries skipped: [{name, reason: 'folder' | 'hidden'}]. */
  skipped: ColumnType<unknown, string | undefined, string>
  status: Generated<'running' | 'completed'>
  created_at: CreatedAt
  completed_at: Timestamp | null
}

export interface AnalyticsEventsTable {
  id: Generated<number>
  event_name: string
  session_id: string | null
  path: string | null
  referrer: string | null
  metadata: Json | null
  created_at: CreatedAt
}

export interface ContactMessagesTable {
  id: Generated<string>
  full_name: string
  email: string
  company: string | null
  message: string
  created_at: CreatedAt
}

export interface ApiWaitlistTable {
  id: Generated<string>
  email: string
  created_at: CreatedAt
}

export type ApiKeyEnvironment = 'live' | 'test'

export interface ApiKeysTable {
  id: Generated<string>
  user_id: string
  name: string
  environment: ApiKeyEnvironment
  /** The visible start of the key (fs_live_ + 4 characters), how the owner recognises it. */
  prefix: string
  /** SHA-256 of the whole key, hex. */
  key_hash: string
  /** A team key: always charges this team (user_id is the owner or admin who created it). */
  team_id: Generated<string | null>
  created_at: CreatedAt
  last_used_at: Timestamp | null
  revoked_at: Timestamp | null
}

export type TeamRole = 'owner' | 'admin' | 'member'

export interface TeamsTable {
  id: Generated<string>
  name: string
  seat_limit: number
  created_by: string | null
  created_at: CreatedAt
}

export interface TeamMembersTable {
  team_id: string
  user_id: string
  role: TeamRole
  /** Credits per UTC calendar month the member may spend of the team's balance; null: no cap. */
  monthly_cap: number | null
  joined_at: CreatedAt
}

export interface TeamInvitesTable {
  id: Generated<string>
  team_id: string
  /** Lower-cased. */
  email: string
  role: TeamRole
  /** SHA-256 of the token, hex; the token itself is only in the mailed link. */
  token_hash: string
  invited_by: string | null
  expires_at: Timestamp
  accepted_at: Timestamp | null
  revoked_at: Timestamp | null
  created_at: CreatedAt
}

export interface WebhookEndpointsTable {
  id: Generated<string>
  account_id: string
  url: string
  events: string[]
  secret_iv: Buffer
  secret_tag: Buffer
  secret_ciphertext: Buffer
  created_at: CreatedAt
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed'

export interface WebhookDeliveriesTable {
  id: Generated<string>
  endpoint_id: string
  event_type: string
  payload: Json
  status: Generated<WebhookDeliveryStatus>
  attempts: Generated<number>
  last_status_code: number | null
  last_error: string | null
  response_excerpt: string | null
  next_attempt_at: Timestamp | null
  created_at: CreatedAt
  updated_at: Generated<Date>
}

/** One operator or team-admin action (migrations/0100): append-only, the database refuses UPDATE and DELETE. */
export interface AuditLogTable {
  id: Generated<number>
  /** The acting user's id, or 'cli' for the operator channel (npm run credits). */
  actor: string
  /** The actor's email when the action happened (a snapshot: later changes do not rewrite it). */
  actor_email: string | null
  action: string
  target_type: string
  target_id: string
  details: Json
  created_at: CreatedAt
}

/** This server's measured speed per tool and variant (migrations/0120): the factor on the tool's seed cost (run-time.ts). */
export interface ToolRatesTable {
  tool: string
  /** The remover's model choice as requested ('auto', 'fast'…); '' for a tool without a choice (run-time.ts rateVariant). */
  variant: string
  factor: number
  samples: Generated<number>
  updated_at: Generated<Date>
}

export interface Database {
  users: UsersTable
  sessions: SessionsTable
  user_tokens: UserTokensTable
  visitors: VisitorsTable
  guest_address_days: GuestAddressDaysTable
  credit_accounts: CreditAccountsTable
  credit_transactions: CreditTransactionsTable
  credit_packages: CreditPackagesTable
  tool_runs: ToolRunsTable
  results: ResultsTable
  result_thumbnails: ResultThumbnailsTable
  result_edits: ResultEditsTable
  result_feedback: ResultFeedbackTable
  tool_jobs: ToolJobsTable
  batches: BatchesTable
  analytics_events: AnalyticsEventsTable
  contact_messages: ContactMessagesTable
  api_waitlist: ApiWaitlistTable
  api_keys: ApiKeysTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  teams: TeamsTable
  team_members: TeamMembersTable
  team_invites: TeamInvitesTable
  audit_log: AuditLogTable
  tool_rates: ToolRatesTable
}

export type User = Selectable<UsersTable>
/** Who a session or an API key acts for: what the pages and the audit need of a user (auth/session.server.ts names it). */
export type SessionUser = Pick<User, 'id' | 'email' | 'first_name' | 'last_name'>
export type CreditAccount = Selectable<CreditAccountsTable>
export type CreditTransaction = Selectable<CreditTransactionsTable>
export type NewCreditTransaction = Insertable<CreditTransactionsTable>
