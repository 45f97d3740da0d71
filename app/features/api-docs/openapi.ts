// The OpenAPI 3.1 document of every /api endpoint, served at /api/openapi.json. Tool endpoints,
// key and webhook rules come from the modules that define them; a test sends real requests and
// checks the real answers against this document.
import { API_KEY_ENVIRONMENTS, API_KEY_NAME_MAX } from '~/features/api-keys/limits'
import { CREDITS_CHARGED_HEADER, ENVIRONMENT_HEADER } from '~/features/api-keys/environments'
import { WEBHOOK_EVENTS, WEBHOOK_URL_MAX } from '~/features/webhooks/events'
import { TOOL_APIS } from './tool-fields'
import { MODEL_CHOICES } from '~/features/tools/models/model-choices'
import { removeBgPath } from '~/features/removebg/openapi'
import { correctionPaths, correctionSchemas } from '~/features/corrections/openapi'
import { feedbackPaths, feedbackSchemas } from '~/features/feedback/openapi'
import { MAX_BATCH_FILES } from '~/catalog/batches'
import { MAX_MONTHLY_CAP, TEAM_NAME_MAX, TEAM_ROLES } from '~/features/teams/roles'
import { SEAT_RULE } from '~/features/teams/messages'
import { MAX_TRANSFER, TRANSFER_AMOUNT_MESSAGE, TRANSFERS_PER_HOUR } from '~/features/teams/transfer'
import { formatCredits } from '~/utils/credits-word'
import { standardDetailCost } from '~/catalog/tools'
import { isEstimated } from '~/features/jobs/run-time'
import { MAX_PREFER_WAIT_SECONDS, TOO_SLOW_CODE } from '~/features/jobs/view'

type Schema = Record<string, unknown>
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: Schema, description: string, headers?: Schema) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
})
const error = (description: string) => json(ref('Error'), description)
const noContent = (description: string) => ({ description })
const jsonBody = (schema: Schema) => ({ required: true, content: { 'application/json': { schema } } })
const idParam = (description: string) => ({ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description })
const nullable = (type: string, extra: Schema = {}) => ({ type: [type, 'null'], ...extra })
const dateTime = { type: 'string', format: 'date-time' }

/** Work as a team: its account pays (and X-Credits-Remaining is its balance). */
const X_TEAM = {
  name: 'X-Team',
  in: 'header',
  required: false,
  schema: { type: 'string', format: 'uuid' },
  description: 'Work as this team (you must be a member): the team’s credits pay. A team key always works as its team.',
}
// Issue 19 (decisions 080, 081): whose an Idempotency-Key is, and what a visitor is told.
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', maxLength: 200 },
  description:
    'Retry safely: a delivered run is answered again without a second charge. A key belongs to its account, environment (live or test) and credential (the API key, else the user, else the visitor): the same key from another of these is a new request; the same key with another request in the same scope answers 422.',
}
// Decision 184: a short run's POST may wait for its end, so its caller needs no first poll.
const PREFER_WAIT = {
  name: 'Prefer',
  in: 'header',
  required: false,
  schema: { type: 'string', example: 'wait=2' },
  description: `\`wait=N\` (RFC 7240, N at most ${MAX_PREFER_WAIT_SECONDS}): when the run is expected to take no longer, the answer waits up to N seconds for its end and is then the job’s status (as GET /api/jobs/{id}/, with \`url\`), and its balance after any refund. \`Preference-Applied: wait=N\` says it waited (a run still going after N seconds is then answered as accepted). A run expected to take longer is answered at once, as without it.`,
}
const GUEST_402 = 'Not enough credits (a visitor is told where to sign up and, with Retry-After, when guest credits renew at 00:00 UTC), or the run would pass your monthly cap on the team (the message names it).'
/** A team's webhook endpoints hear every run the team pays for; its owners and admins manage them. */
const X_TEAM_WEBHOOKS = { ...X_TEAM, description: 'Manage this team’s endpoints (owners and admins; a team key manages its own team’s).' }
const teamManagersOnly = () => error('X-Team: you are a member, not an owner or admin, of the team (or a team key names another team).')
const teamNotFound = () => error('X-Team: no such team, or you are not in it.')
const teamRefused = () => error('X-Team names a team you are not a member of (or another team than the key’s).')

const SIGNED_IN = [{ bearerKey: [] }, { sessionToken: [] }, { sessionCookie: [] }]
const ANYONE = [{}, ...SIGNED_IN]

const rateHeaders = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
}

const RUN_STATE: Schema = { enum: ['waiting', 'running', 'done', 'no_face', 'failed'], description: 'What became of the file: `no_face` is a face-tool run that found no face (its image is delivered unchanged and it is not charged).' }
const SKIPPED_ENTRIES: Schema = { type: 'array', items: { type: 'object', required: ['name', 'reason'], additionalProperties: false, properties: { name: { type: 'string' }, reason: { enum: ['folder', 'hidden'] } } }, description: 'Entries of the zip that are not files of the batch (folders, hidden files such as .DS_Store or __MACOSX/), skipped and listed here.' }

/** Single runs: the queue's limit (503) and one account's share of it (429), docs/decisions/085. */
const QUEUE_429 = 'Too many requests, or your account already has its share of the runs waiting for a worker (the message says how many); see Retry-After.'
const TOO_SLOW_422 = 'The image would not finish within the time limit here (code image_too_slow): largest_size is the size to downscale to. Nothing was charged. A 503 with the same code and largest_size null: no size would, try again later.'
const QUEUE_503 = 'The studio is busy: the queue of waiting runs is full; see Retry-After. Nothing was charged.'

const schemas: Record<string, Schema> = {
  AccountDeleted: {
    type: 'object',
    required: ['detail', 'deleted'],
    properties: {
      detail: { type: 'string' },
      deleted: {
        type: 'object',
        description: 'What the deletion removed, and how many ledger entries it kept.',
        required: ['sessions_ended', 'api_keys_revoked', 'results_deleted', 'corrections_deleted', 'runs_deleted', 'batches_deleted', 'webhooks_removed', 'invites_removed', 'teams_left', 'teams_closed', 'credits_forfeited', 'ledger_entries_kept'],
        properties: {
          sessions_ended: { type: 'integer' },
          api_keys_revoked: { type: 'integer' },
          results_deleted: { type: 'integer' },
          corrections_deleted: { type: 'integer' },
          runs_deleted: { type: 'integer' },
          batches_deleted: { type: 'integer' },
          webhooks_removed: { type: 'integer' },
          invites_removed: { type: 'integer' },
          teams_left: { type: 'array', items: { type: 'string' } },
          teams_closed: { type: 'array', items: { type: 'string' } },
          credits_forfeited: { type: 'integer' },
          ledger_entries_kept: { type: 'integer' },
        },
      },
    },
  },
  TooSlow: {
    type: 'object',
    required: ['error', 'code', 'estimated_seconds', 'time_limit_seconds', 'largest_size'],
    description: 'An image that would not finish within the time limit at this studio’s measured speed: refused before any charge.',
    properties: {
      error: { type: 'string', description: 'What went wrong and the size to downscale to, in words meant for people.' },
      code: { const: TOO_SLOW_CODE },
      estimated_seconds: { type: 'integer', description: 'How long this image would take here.' },
      time_limit_seconds: { type: 'integer', description: 'The time limit of one run.' },
      largest_size: {
        type: ['object', 'null'],
        properties: { width: { type: 'integer' }, height: { type: 'integer' } },
        description: 'The largest size of the same shape that would finish in time: downscale to it (or smaller) and send again. Null with 503: no size would, the studio is too busy now.',
      },
      remaining: { type: ['integer', 'null'] },
    },
  },
  Error: {
    type: 'object',
    required: ['error', 'detail'],
    properties: {
      error: { type: 'string', description: 'What went wrong, in words meant for people.' },
      detail: { type: 'string', description: 'The same message (older clients read this field).' },
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'Every problem, by field (400 only).' },
      remaining: { type: ['integer', 'null'], description: 'Tool, job and batch endpoints: the balance after the failure, or null where the call did not say whose balance it was.' },
      cost: { type: 'integer', description: 'A batch’s 402 when it would pass your monthly cap on the team: what the whole batch would cost, in credits (for a zip, counted by the studio).' },
      job_id: { type: 'string', format: 'uuid', description: 'A tool endpoint’s 503 when the studio restarted before the run ended: the run, which goes on.' },
      job_url: { type: 'string', description: 'That run’s GET /api/jobs/<id>/ (also in Location).' },
      answer_url: { type: 'string', description: 'That run’s answer once it has ended (GET /api/jobs/<id>/answer/).' },
    },
  },
  User: {
    type: 'object',
    required: ['id', 'email', 'first_name', 'last_name'],
    properties: { id: { type: 'string', format: 'uuid' }, email: { type: 'string', format: 'email' }, first_name: nullable('string'), last_name: nullable('string') },
  },
  SignedIn: {
    type: 'object',
    required: ['token', 'user', 'credits'],
    properties: {
      token: { type: 'string', description: 'Send as `Authorization: Token <token>`.' },
      user: ref('User'),
      credits: { type: 'object', required: ['balance'], properties: { balance: { type: 'integer' } } },
    },
  },
  Transaction: {
    type: 'object',
    required: ['id', 'kind', 'delta', 'description', 'tool_slug', 'created_at'],
    properties: {
      id: { type: 'integer' },
      kind: { enum: ['purchase', 'consume', 'adjustment', 'bonus'] },
      delta: { type: 'integer' },
      description: nullable('string'),
      tool_slug: nullable('string'),
      created_at: dateTime,
    },
  },
  Credits: {
    oneOf: [
      { type: 'object', required: ['source', 'balance'], additionalProperties: false, properties: { source: { const: 'visitor' }, balance: { type: 'integer' } } },
      {
        type: 'object',
        required: ['source', 'balance', 'lifetime_spent', 'latest_transaction'],
        properties: {
          source: { const: 'user' },
          balance: { type: 'integer' },
          lifetime_spent: { type: 'integer' },
          latest_transaction: { oneOf: [ref('Transaction'), { type: 'null' }] },
        },
      },
    ],
  },
  Package: {
    type: 'object',
    required: ['id', 'credits', 'price', 'label'],
    properties: { id: { type: 'string' }, credits: { type: 'integer' }, price: { type: 'number' }, label: nullable('string') },
  },
  ApiKey: {
    type: 'object',
    required: ['id', 'name', 'environment', 'prefix', 'created_at', 'last_used_at', 'runs_30d', 'credits_30d'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      environment: { enum: [...API_KEY_ENVIRONMENTS] },
      prefix: { type: 'string', pattern: '^fs_(live|test)_[0-9A-Za-z]{4}$', description: 'The visible start of the key.' },
      created_at: dateTime,
      last_used_at: nullable('string', { format: 'date-time' }),
      runs_30d: { type: 'integer', minimum: 0, description: 'Tool runs made with the key over the last 30 days.' },
      credits_30d: { type: 'integer', description: 'Credits spent with the key over the last 30 days, net of refunds.' },
    },
  },
  NewApiKey: {
    type: 'object',
    required: ['id', 'name', 'environment', 'prefix', 'key'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      environment: { enum: [...API_KEY_ENVIRONMENTS] },
      prefix: { type: 'string' },
      key: { type: 'string', pattern: '^fs_(live|test)_[0-9A-Za-z]{36}$', description: 'The key itself: shown only in this answer.' },
      team_id: { type: 'string', format: 'uuid', description: 'A team key: it always charges this team.' },
    },
  },
  TeamSummary: {
    type: 'object',
    required: ['id', 'name', 'role'],
    additionalProperties: false,
    properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, role: { enum: [...TEAM_ROLES] } },
  },
  NewTeam: {
    type: 'object',
    required: ['id', 'name'],
    additionalProperties: false,
    properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' } },
  },
  TeamMember: {
    type: 'object',
    required: ['user_id', 'email', 'name', 'role', 'spent_this_month', 'cap'],
    additionalProperties: false,
    properties: {
      user_id: { type: 'string', format: 'uuid' },
      email: { type: 'string' },
      name: nullable('string'),
      role: { enum: [...TEAM_ROLES] },
      spent_this_month: { type: 'integer', description: 'Credits spent of the team’s balance this calendar month (UTC), net of refunds.' },
      cap: { type: ['integer', 'null'], minimum: 0, description: 'The monthly cap in credits; null: none.' },
    },
  },
  TeamInvite: {
    type: 'object',
    required: ['id', 'email', 'role', 'expires_at'],
    additionalProperties: false,
    properties: { id: { type: 'string', format: 'uuid' }, email: { type: 'string' }, role: { enum: [...TEAM_ROLES] }, expires_at: dateTime },
  },
  Team: {
    type: 'object',
    required: ['id', 'name', 'balance', 'seats', 'role', 'spent_this_month', 'members', 'invites', 'keys'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      balance: { type: 'integer', minimum: 0 },
      seats: { type: 'object', required: ['used', 'limit'], additionalProperties: false, properties: { used: { type: 'integer' }, limit: { type: 'integer' } }, description: `Members plus pending invites, and the limit an operator sets. ${SEAT_RULE}` },
      role: { enum: [...TEAM_ROLES], description: 'Your role.' },
      spent_this_month: { type: 'integer', description: 'The whole team’s (owners and admins) or your own (members).' },
      members: { type: 'array', items: ref('TeamMember'), description: 'Every member for owners and admins; only yourself for members.' },
      invites: { type: 'array', items: ref('TeamInvite'), description: 'Pending invites (owners and admins).' },
      keys: { type: 'array', items: ref('ApiKey'), description: 'The team’s API keys (owners and admins).' },
    },
  },
  TeamActivity: {
    type: 'object',
    required: ['id', 'at', 'email', 'tool', 'credits', 'description'],
    additionalProperties: false,
    properties: {
      id: { type: 'string' },
      at: dateTime,
      email: { type: 'string', description: 'The member; empty for an operator’s grant.' },
      tool: nullable('string'),
      credits: { type: 'integer', description: 'Signed: a run’s charge is negative, a refund or grant positive.' },
      description: nullable('string'),
    },
  },
  WebhookDelivery: {
    type: 'object',
    required: ['id', 'event_type', 'status', 'attempts', 'last_status_code', 'last_error', 'next_attempt_at', 'created_at'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      event_type: { enum: [...WEBHOOK_EVENTS] },
      status: { enum: ['pending', 'succeeded', 'failed'] },
      attempts: { type: 'integer', minimum: 0 },
      last_status_code: nullable('integer'),
      last_error: nullable('string'),
      next_attempt_at: nullable('string', { format: 'date-time' }),
      created_at: dateTime,
    },
  },
  WebhookEndpoint: {
    type: 'object',
    required: ['id', 'url', 'events', 'created_at', 'deliveries'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      url: { type: 'string', format: 'uri' },
      events: { type: 'array', items: { enum: [...WEBHOOK_EVENTS] } },
      created_at: dateTime,
      deliveries: { type: 'array', items: ref('WebhookDelivery'), description: 'The most recent deliveries, newest first.' },
    },
  },
  NewWebhookEndpoint: {
    type: 'object',
    required: ['id', 'url', 'events', 'secret', 'created_at'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      url: { type: 'string', format: 'uri' },
      events: { type: 'array', items: { enum: [...WEBHOOK_EVENTS] } },
      secret: { type: 'string', pattern: '^whsec_', description: 'The signing secret: shown only in this answer.' },
      created_at: dateTime,
    },
  },
  WebhookEvent: {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    properties: { type: { enum: [...WEBHOOK_EVENTS] }, timestamp: dateTime, data: { type: 'object' } },
  },
  Accepted: {
    type: 'object',
    required: ['id', 'status', 'url'],
    properties: { id: { type: 'string', format: 'uuid' }, status: { enum: ['queued', 'running', 'succeeded', 'failed'] }, url: { type: 'string', description: 'Where to follow the job.' } },
  },
  Job: {
    type: 'object',
    required: ['id', 'tool', 'status', 'progress', 'stage', 'result_url', 'signed_result_url', 'error', 'remaining', 'elapsed_seconds', 'estimated_seconds_left'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      tool: { enum: TOOL_APIS.map((a) => a.tool.slug) },
      status: { enum: ['queued', 'running', 'succeeded', 'failed'] },
      progress: { type: 'integer', minimum: 0, maximum: 100 },
      stage: nullable('string'),
      result_url: nullable('string', { description: 'The result, for the account that ran the job (its key, token or cookie), for 24 hours.' }),
      signed_result_url: nullable('string', { description: 'The same result for anyone holding this link, until its `expires` (one hour); read the job again for a fresh one.' }),
      error: nullable('string'),
      remaining: nullable('integer'),
      faces: { type: 'array', items: ref('FaceBox'), description: 'A face-blur job: the boxes the detector found, in the result’s pixels (correct them with POST /api/jobs/{id}/corrections/).' },
      elapsed_seconds: { type: ['integer', 'null'], minimum: 0, description: 'Seconds since the job was created, while it is queued or running (what the tool page shows as Elapsed); null once it has ended.' },
      estimated_seconds_left: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'While it runs: the seconds its work should still take, from its expected time on this server and its own pace so far (the estimate the tool page counts down from). Null while queued, before its work begins, for a run too short to count down (under 5 s in all), when nothing yet tells its pace, and once it has ended.',
      },
    },
    additionalProperties: false,
  },
  ...correctionSchemas,
  ...feedbackSchemas,
  BatchAccepted: {
    type: 'object',
    required: ['id', 'url', 'total', 'skipped'],
    properties: { id: { type: 'string', format: 'uuid' }, url: { type: 'string' }, total: { type: 'integer', minimum: 1, maximum: MAX_BATCH_FILES }, skipped: SKIPPED_ENTRIES },
    additionalProperties: false,
  },
  Batch: {
    type: 'object',
    required: ['id', 'tool', 'status', 'total', 'skipped', 'done', 'failed', 'no_face', 'items'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      tool: { enum: TOOL_APIS.map((a) => a.tool.slug) },
      status: { enum: ['running', 'completed'] },
      total: { type: 'integer' },
      skipped: SKIPPED_ENTRIES,
      done: { type: 'integer' },
      failed: { type: 'integer' },
      no_face: { type: 'integer', description: 'Of `done`: face-tool files in which no face was found (delivered unchanged, not charged).' },
      items: {
        type: 'array',
        items: {
          type: 'object',
          required: ['job_id', 'name', 'status', 'state', 'status_text', 'progress', 'credits_charged', 'result_url', 'thumbnail_url', 'error'],
          properties: {
            job_id: { type: 'string', format: 'uuid', description: 'The file’s own job: `GET /api/jobs/{id}/`, and its corrections.' },
            name: { type: 'string' },
            status: { enum: ['queued', 'running', 'succeeded', 'failed'], description: 'The job’s status. A face tool’s file with no face in it has `succeeded` (its image is delivered unchanged); `state` tells it apart.' },
            state: RUN_STATE,
            status_text: { type: 'string', description: 'The state in words, as the studio shows it: `Waiting`, `Running: 40%`, `Done`, `No face found (not charged)`, `Failed: …`.' },
            progress: { type: 'integer' },
            credits_charged: { type: 'integer', description: 'Credits this file took and kept (0 while waiting, when refunded, and for a test key).' },
            result_url: nullable('string'),
            thumbnail_url: nullable('string', { description: 'A WebP at most 160 pixels on a side of the result, for its owner while the result lasts.' }),
            error: nullable('string'),
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  Model: {
    type: 'object',
    required: ['id', 'task', 'tools', 'optional', 'installed', 'usable', 'license', 'commercial_use', 'bytes', 'approx_megabytes', 'choices', 'note'],
    properties: {
      id: { type: 'string' },
      task: { type: 'string' },
      tools: { type: 'array', items: { type: 'string' } },
      optional: { type: 'boolean', description: 'False for the models the tools cannot run without.' },
      installed: { type: 'boolean' },
      usable: { type: 'boolean', description: 'Installed and allowed by its licence: weights not licensed for commercial use load only when the operator sets ALLOW_NONCOMMERCIAL_MODELS=true.' },
      license: { type: 'string' },
      commercial_use: { type: 'boolean', description: 'Whether the weights’ licence allows commercial use.' },
      bytes: nullable('integer', { description: 'The installed file’s size, else the pinned size; null when unknown.' }),
      approx_megabytes: nullable('number', { description: 'The download’s approximate size when its bytes are not pinned.' }),
      choices: { type: 'array', items: { enum: [...MODEL_CHOICES] }, description: 'The background remover’s `model` values this model answers when installed.' },
      note: nullable('string', { description: 'Why an installed model is not used.' }),
    },
  },
  Restored: {
    type: 'object',
    required: ['restored_url', 'gfpgan_available'],
    properties: {
      restored_url: { type: 'string', description: 'A signed link to the restored portrait: it opens for anyone holding it for one hour (`expires`, `signature`), and for the account that ran it for 24 hours.' },
      gfpgan_available: { type: 'boolean' },
      filename: { type: 'string', description: 'The result’s download name; its extension says its type (face-restored.jpg for a JPEG portrait by default).' },
      note: { type: 'string', description: 'Which engine ran (as X-Facet-Note).' },
    },
  },
}

function toolPath(api: (typeof TOOL_APIS)[number]) {
  const properties: Record<string, Schema> = {}
  for (const field of api.fields) properties[field.name] = { ...field.schema, description: field.description }
  const content: Record<string, Schema> = {}
  for (const type of api.answerTypes) {
    content[type] = type === 'application/json' ? { schema: ref('Restored') } : { schema: { type: 'string', contentMediaType: type } }
  }
  // The restorer's Standard detail (no face-restoration model) is priced below a real restoration.
  const standard = api.tool.slug === 'face-restorer' ? `, ${formatCredits(standardDetailCost(api.tool.defaultCost))} in Standard detail (no GFPGAN)` : ''
  return {
    post: {
      tags: ['Tools'],
      summary: api.tool.name,
      description: `${api.tool.description} ${api.answer} Costs ${formatCredits(api.tool.defaultCost)}${standard} by default (see /pricing).`,
      security: api.tool.signInRequired ? SIGNED_IN : ANYONE,
      parameters: [IDEMPOTENCY_KEY, X_TEAM],
      requestBody: {
        required: true,
        content: { 'multipart/form-data': { schema: { type: 'object', required: api.fields.filter((f) => f.required).map((f) => f.name), properties } } },
      },
      responses: {
        '200': {
          description: api.answer,
          headers: {
            'X-Credits-Remaining': { schema: { type: 'integer' }, description: 'The balance after the run.' },
            [CREDITS_CHARGED_HEADER]: { schema: { type: 'integer' }, description: 'Credits this answer took (0 for test keys and replays).' },
            [ENVIRONMENT_HEADER]: { schema: { enum: [...API_KEY_ENVIRONMENTS] }, description: 'The key’s environment, for key callers.' },
            'X-Facet-Job-Id': { schema: { type: 'string' }, description: 'The run’s job: follow it at /api/jobs/{id}/, correct it at /api/jobs/{id}/corrections/.' },
            ...Object.fromEntries(Object.entries(api.answerHeaders ?? {}).map(([name, description]) => [name, { schema: { type: 'string' }, description }])),
            ...rateHeaders,
          },
          content,
        },
        '400': error('The file or an option is not valid.'),
        '401': error('A key or token that is not valid; the tool needs a signed-in caller; or this studio runs tools for accounts only (the message says where to sign up).'),
        '402': error(GUEST_402),
        '403': teamRefused(),
        '409': error('The Idempotency-Key names a run that failed or is still running.'),
        '413': error(`The file is larger than ${api.tool.maxMegabytes} MB.`),
        '415': error(`The file is not ${api.tool.acceptedLabel}.`),
        ...(isEstimated(api.tool.slug) ? { '422': json(ref('TooSlow'), TOO_SLOW_422) } : {}),
        '429': error(QUEUE_429),
        '503': json(
          ref('Error'),
          `${QUEUE_503} Or the studio restarted before your run ended: the run goes on and keeps its charge (refunded if it fails), so do not send it again; Location, job_url and answer_url name it, to follow once Retry-After has passed.`,
          { 'Retry-After': { schema: { type: 'integer' } }, Location: { schema: { type: 'string' }, description: 'The run’s GET /api/jobs/<id>/ (restart only).' } },
        ),
      },
    },
  }
}

const auth401 = error('Not signed in, or the key or token is not valid.')

export function openApiDocument() {
  const paths: Record<string, unknown> = {
    '/api/auth/register/': {
      post: {
        tags: ['Accounts'],
        summary: 'Create an account (a verification link is mailed)',
        requestBody: jsonBody({ type: 'object', required: ['email', 'password'], properties: { email: { type: 'string' }, password: { type: 'string' }, first_name: { type: 'string' }, last_name: { type: 'string' } } }),
        responses: {
          '201': json({ type: 'object', required: ['detail', 'email', 'expires_in_hours'], properties: { detail: { type: 'string' }, email: { type: 'string' }, expires_in_hours: { type: 'integer' } } }, 'Registered, or the address already has an account (the answer is the same).'),
          '400': error('Invalid fields.'),
          '429': error('Too many attempts.'),
        },
      },
    },
    '/api/auth/verify-email/': {
      post: { tags: ['Accounts'], summary: 'Verify the email and sign in', requestBody: jsonBody({ type: 'object', required: ['token'], properties: { token: { type: 'string' } } }), responses: { '200': json(ref('SignedIn'), 'Verified and signed in.'), '400': error('The token is missing, used or expired.'), '429': error('Too many attempts.') } },
    },
    '/api/auth/resend-verification/': {
      post: { tags: ['Accounts'], summary: 'Mail a fresh verification link', requestBody: jsonBody({ type: 'object', required: ['email'], properties: { email: { type: 'string' } } }), responses: { '200': json({ type: 'object', properties: { detail: { type: 'string' } } }, 'The same answer whether or not the account exists.'), '400': error('Invalid email.'), '429': error('Too many attempts.') } },
    },
    '/api/auth/login/': {
      post: { tags: ['Accounts'], summary: 'Sign in with email and password; the token goes in `Authorization: Token <token>`', requestBody: jsonBody({ type: 'object', required: ['email', 'password'], properties: { email: { type: 'string' }, password: { type: 'string' } } }), responses: { '200': json(ref('SignedIn'), 'Signed in.'), '400': error('Wrong email or password, or missing fields.'), '429': error('Too many attempts.') } },
    },
    '/api/auth/logout/': { post: { tags: ['Accounts'], summary: 'Sign out (revoke the session)', security: SIGNED_IN, responses: { '204': noContent('Signed out (also when already signed out).') } } },
    '/api/auth/profile/': { get: { tags: ['Accounts'], summary: 'Who is signed in', security: SIGNED_IN, responses: { '200': json(ref('User'), 'The user.'), '401': auth401 } } },
    '/api/auth/password-reset/': {
      post: { tags: ['Accounts'], summary: 'Mail a one-hour reset link', requestBody: jsonBody({ type: 'object', required: ['email'], properties: { email: { type: 'string' } } }), responses: { '200': json({ type: 'object', properties: { detail: { type: 'string' } } }, 'The same answer whether or not the account exists.'), '400': error('Invalid email.'), '429': error('Too many attempts.') } },
    },
    '/api/auth/password-reset/confirm/': {
      post: { tags: ['Accounts'], summary: 'Set a new password with the mailed token', requestBody: jsonBody({ type: 'object', required: ['token', 'password'], properties: { token: { type: 'string' }, password: { type: 'string' } } }), responses: { '200': json({ type: 'object', properties: { detail: { type: 'string' } } }, 'The password was changed; every session of the account ended and every API key its user made was revoked (the owner is mailed what ended).'), '400': error('The token or the password is not valid.'), '429': error('Too many attempts.') } },
    },
    '/api/account/export/': {
      get: {
        tags: ['Accounts'],
        summary: 'Download your data: a zip of facet-studio-export.json and the result files still kept',
        description:
          'Everything the studio keeps about the caller, for the rights to access and to portability: `facet-studio-export.json` (account: email, names, dates, verification, plan; the credit ledger; runs and their results; batches; corrections; API keys by name and prefix, never the keys or their hashes; teams and role; invites received and sent; webhook endpoints without their secrets; contact messages; and what is not included, with why) and, under `results/`, each result file still kept (results are deleted 24 hours after their run). A session or a personal key; a team key is refused. At most 5 an hour.',
        security: SIGNED_IN,
        responses: {
          '200': { description: 'The zip (Content-Disposition names it facet-studio-export-YYYY-MM-DD.zip).', content: { 'application/zip': { schema: { type: 'string', contentMediaType: 'application/zip' } } } },
          '401': auth401,
          '403': error('Called with a team key.'),
          '429': error('Too many exports; see Retry-After.'),
        },
      },
    },
    '/api/account/': {
      delete: {
        tags: ['Accounts'],
        summary: 'Delete your account, confirmed with your password',
        description:
          'Deletes the account in one step: every session and API key stops working at once; results, corrections, runs, batches and webhooks are deleted; the caller leaves every team (a team they are the only member of closes), and invites to or from them end; the name, email and password are erased and the remaining credits forfeited. The credit ledger keeps its entries without personal data, for the books; the audit log records the deletion. A mail confirms it. The same address can sign up again later, as a new, empty account. The password is required whatever the credential, so a leaked key or token alone cannot delete an account.',
        security: SIGNED_IN,
        requestBody: jsonBody({ type: 'object', required: ['password'], additionalProperties: false, properties: { password: { type: 'string', description: 'The account’s current password.' } } }),
        responses: {
          '200': json(ref('AccountDeleted'), 'Deleted.'),
          '400': error('The password is missing.'),
          '401': auth401,
          '403': error('Wrong password, or called with a team key.'),
          '409': error('The caller is the last owner of a team that has other members (the message names the teams: make another member an owner first), or runs of theirs are still in progress.'),
          '429': error('Too many attempts; see Retry-After.'),
        },
      },
    },
    '/api/credits/balance/': { get: { tags: ['Credits'], summary: 'The caller’s balance (a visitor gets a cookie here: its own, or its network’s shared one past the identities per address)', security: ANYONE, parameters: [X_TEAM], responses: { '200': json(ref('Credits'), 'The balance (the team’s with X-Team).'), '401': auth401, '403': teamRefused() } } },
    '/api/credits/packages/': { get: { tags: ['Credits'], summary: 'Credit packages', responses: { '200': json({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: ref('Package') } } }, 'The packages.') } } },
    '/api/credits/transactions/': {
      get: {
        tags: ['Credits'],
        summary: 'The signed-in user’s ledger, newest first',
        security: SIGNED_IN,
        parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } }],
        responses: { '200': json({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: ref('Transaction') } } }, 'The transactions.'), '400': error('limit is out of range.'), '401': auth401 },
      },
    },
    '/api/credits/purchase/': { post: { tags: ['Credits'], summary: 'Buy a package (paused: answers 503 while no payment provider exists)', security: SIGNED_IN, requestBody: jsonBody({ type: 'object', required: ['package_id'], properties: { package_id: { type: 'string' } } }), responses: { '400': error('Unknown package.'), '401': auth401, '503': error('Purchasing is paused.') } } },
    '/api/analytics/events/': { post: { tags: ['Site'], summary: 'Record a page analytics event', requestBody: jsonBody({ type: 'object', required: ['event_name'], properties: { event_name: { type: 'string' }, session_id: { type: 'string' }, path: { type: 'string' }, referrer: { type: 'string' }, metadata: { type: 'object' } } }), responses: { '204': noContent('Stored.'), '400': error('Malformed event.'), '429': error('Too many events.') } } },
    '/api/results/{id}': {
      get: {
        tags: ['Tools'],
        summary: 'A stored result (the restorer’s restored_url), for the account that made it for 24 hours, or for the holder of a signed link until it expires',
        security: ANYONE,
        parameters: [
          idParam('The result id.'),
          { name: 'download', in: 'query', required: false, schema: { const: '1' } },
          { name: 'expires', in: 'query', required: false, schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'A signed link’s expiry (Unix seconds).' },
          { name: 'signature', in: 'query', required: false, schema: { type: 'string' }, description: 'A signed link’s HMAC-SHA256 (base64url).' },
        ],
        responses: {
          '200': { description: 'The image.', content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } } } },
          '404': error('Unknown, expired, or another account’s result, or a forged link.'),
          '410': error('A signed link past its expiry, sent without the credentials of the run.'),
        },
      },
    },
    '/api/keys/': {
      get: { tags: ['API keys'], summary: 'Your active API keys (never the keys themselves)', security: SIGNED_IN, responses: { '200': json({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: ref('ApiKey') } } }, 'The keys, newest first.', rateHeaders), '401': auth401 } },
      post: {
        tags: ['API keys'],
        summary: 'Create an API key: the key is in this answer only',
        description: 'Needs a session (cookie or Token): an API key cannot create keys. With `team_id`, a team key (owners and admins of the team): it always charges the team, and is listed on GET /api/teams/{id}/.',
        security: [{ sessionToken: [] }, { sessionCookie: [] }],
        requestBody: jsonBody({ type: 'object', required: ['name', 'environment'], properties: { name: { type: 'string', minLength: 1, maxLength: API_KEY_NAME_MAX }, environment: { enum: [...API_KEY_ENVIRONMENTS] }, team_id: { type: 'string', format: 'uuid' } } }),
        responses: { '201': json(ref('NewApiKey'), 'Created.'), '400': error('Invalid name, environment or team_id.'), '401': auth401, '403': error('Called with an API key, or you are a member (not an owner or admin) of the team.'), '404': error('No such team, or you are not in it.'), '409': error('Too many active keys.') },
      },
    },
    '/api/keys/{id}/': {
      delete: { tags: ['API keys'], summary: 'Revoke an API key (it stops working at once); owners and admins revoke their team’s keys', security: [{ sessionToken: [] }, { sessionCookie: [] }], parameters: [idParam('The key id.')], responses: { '204': noContent('Revoked.'), '401': auth401, '403': error('Called with an API key.'), '404': error('Unknown, revoked already, or another user’s key.') } },
    },
    '/api/webhooks/': {
      get: { tags: ['Webhooks'], summary: 'Your webhook endpoints (a team’s with X-Team or a team key) and their recent deliveries', security: SIGNED_IN, parameters: [X_TEAM_WEBHOOKS], responses: { '200': json({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: ref('WebhookEndpoint') } } }, 'The endpoints, newest first.', rateHeaders), '401': auth401, '403': teamManagersOnly(), '404': teamNotFound() } },
      post: {
        tags: ['Webhooks'],
        summary: 'Register an endpoint: the signing secret is in this answer only',
        security: SIGNED_IN,
        parameters: [X_TEAM_WEBHOOKS],
        requestBody: jsonBody({ type: 'object', required: ['url', 'events'], properties: { url: { type: 'string', maxLength: WEBHOOK_URL_MAX }, events: { type: 'array', minItems: 1, items: { enum: [...WEBHOOK_EVENTS] } } } }),
        responses: { '201': json(ref('NewWebhookEndpoint'), 'Registered.'), '400': error('Not an http(s) URL, a non-public address, or unknown events.'), '401': auth401, '403': teamManagersOnly(), '404': teamNotFound(), '409': error('Too many endpoints.') },
      },
    },
    '/api/webhooks/{id}/': {
      delete: { tags: ['Webhooks'], summary: 'Delete an endpoint and its delivery log', security: SIGNED_IN, parameters: [idParam('The endpoint id.'), X_TEAM_WEBHOOKS], responses: { '204': noContent('Deleted.'), '401': auth401, '403': teamManagersOnly(), '404': error('Unknown, or another account’s endpoint.') } },
    },
    '/api/webhooks/deliveries/{id}/redeliver/': {
      post: {
        tags: ['Webhooks'],
        summary: 'Attempt a delivery once more, now',
        security: SIGNED_IN,
        parameters: [idParam('The delivery id.'), X_TEAM_WEBHOOKS],
        responses: { '202': json({ type: 'object', required: ['id', 'status'], properties: { id: { type: 'string' }, status: { const: 'pending' } } }, 'Queued.'), '401': auth401, '403': teamManagersOnly(), '404': error('Unknown, or another account’s delivery.') },
      },
    },
    '/api/jobs/': {
      post: {
        tags: ['Jobs'],
        summary: 'Run a tool as a job: answered at once, followed at its url',
        description: 'multipart/form-data: `tool` and that tool’s own fields (as on its endpoint). A repeated Idempotency-Key answers 200 with the job it named.',
        security: ANYONE,
        parameters: [IDEMPOTENCY_KEY, X_TEAM, PREFER_WAIT],
        requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: ['tool'], properties: { tool: { enum: TOOL_APIS.map((a) => a.tool.slug) } } } } } },
        responses: {
          '200': json(ref('Accepted'), 'The job this Idempotency-Key named.'),
          '202': json(ref('Accepted'), 'Accepted (Location: the job). With `Prefer: wait=N` and a run that ended within it, the job’s status with its `url`.', { [CREDITS_CHARGED_HEADER]: { schema: { type: 'integer' } }, 'X-Credits-Remaining': { schema: { type: 'integer' } } }),
          '400': error('No or unknown tool, or the tool’s input is not valid.'),
          '401': auth401,
          '402': error(GUEST_402),
          '403': teamRefused(),
          '409': error('The Idempotency-Key names a run that failed or is still running.'),
          '413': error('The file is too large.'),
          '415': error('The file is not of a type the tool takes.'),
          '422': json({ oneOf: [ref('Error'), ref('TooSlow')] }, `The Idempotency-Key was used for another request; or ${TOO_SLOW_422.charAt(0).toLowerCase()}${TOO_SLOW_422.slice(1)}`),
          '429': error(QUEUE_429),
          '503': error(QUEUE_503),
        },
      },
    },
    '/api/jobs/{id}/': {
      get: { tags: ['Jobs'], summary: 'A job’s status and progress (its owner only)', security: ANYONE, parameters: [X_TEAM, idParam('The job id.')], responses: { '200': json(ref('Job'), 'The job.'), '404': error('Unknown, or another account’s job.') } },
    },
    '/api/jobs/{id}/answer/': {
      get: {
        tags: ['Jobs'],
        summary: 'An ended job’s answer, exactly as its tool’s endpoint gives it',
        security: ANYONE,
        parameters: [idParam('The job id.')],
        responses: {
          '200': { description: 'The result (as the tool’s endpoint answers it).', content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } }, 'application/json': { schema: ref('Restored') } } },
          '404': error('Unknown, or another account’s job.'),
          '409': error('The job has not ended yet.'),
          '410': error('The result has expired (kept 24 hours).'),
        },
      },
    },
    '/api/batches/': {
      post: {
        tags: ['Batches'],
        summary: `Run up to ${MAX_BATCH_FILES} files through one tool`,
        description: `multipart/form-data: \`tool\`, that tool’s options, and the files as repeated file fields (\`image\`, or \`svg\` for the SVG converter), or one zip of them (its folders and hidden files are skipped and listed in \`skipped\`). More than ${MAX_BATCH_FILES} files, in the form or in the zip, are refused (400), never cut. Each file is a job, charged when it runs and refunded if it fails; a batch the balance cannot pay in full is refused (402) with how many files it covers. The whole upload is limited by the BATCH_MAX_MEGABYTES setting.`,
        security: ANYONE,
        parameters: [X_TEAM],
        requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: ['tool'], properties: { tool: { enum: TOOL_APIS.map((a) => a.tool.slug) }, image: { type: 'array', items: { type: 'string', contentMediaType: 'application/octet-stream' } } } } } } },
        responses: {
          '202': json(ref('BatchAccepted'), 'Accepted (Location: the batch). Nothing is charged yet.', { [CREDITS_CHARGED_HEADER]: { schema: { const: '0' } }, 'X-Credits-Remaining': { schema: { type: 'integer' } } }),
          '400': error(`No or unknown tool, no files, more than ${MAX_BATCH_FILES} files (the message names the limit), files in another tool’s file field, a bad option or an unreadable zip.`),
          '401': auth401,
          '402': error('The balance does not cover every file: the message says how many it covers. Or, working as a team, the batch would pass your monthly cap: the message names it, and `cost` is what the batch would cost.'),
          '403': teamRefused(),
          '413': error('A file, the zip’s contents or the whole upload is too large.'),
          '429': error('Too many requests, or your account already has its share of batch files waiting for a worker (half of BATCH_QUEUE_LIMIT); see Retry-After.'),
          '503': error('The tool’s model is not installed, or the queue of batch files is full (BATCH_QUEUE_LIMIT; see Retry-After).'),
        },
      },
    },
    '/api/batches/{id}/': {
      get: { tags: ['Batches'], summary: 'A batch and each file’s status (its owner only)', security: ANYONE, parameters: [X_TEAM, idParam('The batch id.')], responses: { '200': json(ref('Batch'), 'The batch.'), '404': error('Unknown, or another account’s batch.') } },
    },
    '/api/batches/{id}/download/': {
      get: {
        tags: ['Batches'],
        summary: 'A completed batch’s results as a zip, under the files’ own names, with manifest.json and errors.json',
        description:
          'The zip holds each result under its file’s own name where that is safe on Windows, macOS and Linux, else the nearest safe name (made unique with “ (2)”), then `manifest.json`: an array with one entry per file of the batch, in the order sent, `{name, file, renamed, state, status_text, credits_charged, error}` (`name`: the file’s name as sent; `file`: the result’s name in the zip, or null when it has none; `renamed`: true when `file` is not `name` with the result’s extension, because the name is not safe to extract on every system (separators and `<>:"|?*`, control characters, Windows device names such as CON, a trailing dot or space, more than 255 bytes, not in NFC) or another file had it first; `state`: `done`, `no_face`, `failed`; `credits_charged`: credits the file took and kept). When any file failed or found no face, `errors.json` lists them as `{name, error}` (a no-face file’s error is `No face found (not charged)`; its unchanged image is still in the zip).',
        security: ANYONE,
        parameters: [idParam('The batch id.')],
        responses: { '200': { description: 'The zip.', content: { 'application/zip': { schema: { type: 'string', contentMediaType: 'application/zip' } } } }, '404': error('Unknown, or another account’s batch.'), '409': error('The batch has not ended yet.') },
      },
    },
    '/api/teams/': {
      get: { tags: ['Teams'], summary: 'Your teams and your role in each', security: SIGNED_IN, responses: { '200': json({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: ref('TeamSummary') } } }, 'The teams.'), '401': auth401, '403': error('Called with a team key.') } },
      post: {
        tags: ['Teams'],
        summary: 'Create a team: you are its owner; it starts with 0 credits (its members move credits in, or an operator grants them)',
        security: SIGNED_IN,
        requestBody: jsonBody({ type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: TEAM_NAME_MAX } } }),
        responses: { '201': json(ref('NewTeam'), 'Created.'), '400': error('Invalid name.'), '401': auth401, '403': error('Called with a team key.'), '409': error('You own too many teams already.') },
      },
    },
    '/api/teams/{id}/': {
      get: {
        tags: ['Teams'],
        summary: 'A team: balance, seats, members with their spending this month and caps (members see only themselves)',
        security: SIGNED_IN,
        parameters: [idParam('The team id.')],
        responses: { '200': json(ref('Team'), 'The team.'), '401': auth401, '403': error('Called with a team key.'), '404': error('No such team, or you are not in it.') },
      },
    },
    '/api/teams/{id}/activity/': {
      get: {
        tags: ['Teams'],
        summary: 'The team’s ledger, newest first: who ran which tool, when, for how much (members: their own runs)',
        security: SIGNED_IN,
        parameters: [idParam('The team id.'), { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } }],
        responses: { '200': json({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: ref('TeamActivity') } } }, 'The activity.'), '400': error('limit is out of range.'), '401': auth401, '403': error('Called with a team key.'), '404': error('No such team, or you are not in it.') },
      },
    },
    '/api/teams/{id}/transfers/': {
      post: {
        tags: ['Teams'],
        summary: 'Move credits from your own balance into the team (any member: owner, admin or member)',
        description: `Takes \`amount\` credits off your own account and adds them to the team's, in one ledger transaction (both entries, or neither), recorded in the audit log. The credits under the daily floor (USER_DAILY_FLOOR) stay with you: you may move the balance above it. At most ${TRANSFERS_PER_HOUR} transfers an hour.`,
        security: SIGNED_IN,
        parameters: [idParam('The team id.')],
        requestBody: jsonBody({ type: 'object', required: ['amount'], properties: { amount: { type: 'integer', minimum: 1, maximum: MAX_TRANSFER } } }),
        responses: {
          '201': json(
            {
              type: 'object',
              required: ['id', 'team_id', 'amount', 'balance', 'team_balance'],
              additionalProperties: false,
              properties: {
                id: { type: 'string', format: 'uuid', description: 'The transfer (its two ledger rows carry it).' },
                team_id: { type: 'string', format: 'uuid' },
                amount: { type: 'integer' },
                balance: { type: 'integer', description: 'Your own balance after the transfer.' },
                team_balance: { type: 'integer', description: 'The team’s balance after the transfer.' },
              },
            },
            'Moved.',
          ),
          '400': error(TRANSFER_AMOUNT_MESSAGE),
          '401': auth401,
          '402': error('More than your balance above the daily floor: the message says how much you may move.'),
          '403': error('Called with a team key, or with a test key (fs_test_), which never moves live credits.'),
          '404': error('No such team, or you are not in it.'),
          '429': error('Too many transfers; try again later.'),
        },
      },
    },
    '/api/teams/{id}/invites/': {
      post: {
        tags: ['Teams'],
        summary: 'Invite an address: a single-use link, valid 7 days, is mailed to it (owners and admins; only owners invite owners)',
        security: SIGNED_IN,
        parameters: [idParam('The team id.')],
        requestBody: jsonBody({ type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' }, role: { enum: [...TEAM_ROLES], default: 'member' } } }),
        responses: {
          '201': json(ref('TeamInvite'), 'Invited; the mail is sent.'),
          '400': error('Invalid email or role.'),
          '401': auth401,
          '403': error('You are a member (not an owner or admin), an admin inviting an owner, or calling with a team key.'),
          '404': error('No such team, or you are not in it.'),
          '409': error('Every seat is taken (members and pending invites: a new invite needs a free seat), or the address is a member already.'),
          '429': error('Too many invites; try again later.'),
        },
      },
    },
    '/api/teams/{id}/invites/{invite_id}/': {
      delete: {
        tags: ['Teams'],
        summary: 'Withdraw a pending invite (its link stops working, its seat is free)',
        security: SIGNED_IN,
        parameters: [idParam('The team id.'), { name: 'invite_id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': noContent('Withdrawn.'), '401': auth401, '403': error('Not an owner or admin.'), '404': error('No such team or invite.'), '410': error('The invite was used already.') },
      },
    },
    '/api/teams/invites/accept/': {
      post: {
        tags: ['Teams'],
        summary: 'Accept an invite, signed in as the invited address (without an account: sign up first)',
        security: SIGNED_IN,
        requestBody: jsonBody({ type: 'object', required: ['token'], properties: { token: { type: 'string', description: 'The last part of the mailed link.' } } }),
        responses: {
          '200': json({ type: 'object', required: ['team_id'], additionalProperties: false, properties: { team_id: { type: 'string', format: 'uuid' } } }, 'You are a member.'),
          '400': error('No token.'),
          '401': auth401,
          '403': error('Signed in as another address than the invited one.'),
          '404': error('The token names no invite.'),
          '409': error('Every member seat is taken: the team has as many members as its seat limit (a pending invite is accepted while members are fewer than the limit, even one lowered below the seats in use).'),
          '410': error('The invite expired, was used or was withdrawn.'),
        },
      },
    },
    '/api/teams/{id}/members/{user_id}/': {
      patch: {
        tags: ['Teams'],
        summary: 'Change a member’s role and/or monthly cap (owners and admins; only owners make or change owners)',
        security: SIGNED_IN,
        parameters: [idParam('The team id.'), { name: 'user_id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: jsonBody({ type: 'object', properties: { role: { enum: [...TEAM_ROLES] }, cap: { type: ['integer', 'null'], minimum: 0, maximum: MAX_MONTHLY_CAP, description: 'Credits per calendar month (UTC); null: no cap.' } } }),
        responses: {
          '200': json(ref('TeamMember'), 'The member, changed.'),
          '400': error('Neither role nor cap, or an invalid one.'),
          '401': auth401,
          '403': error('Not allowed for your role.'),
          '404': error('No such team or member.'),
          '409': error('The team’s last owner cannot be demoted.'),
        },
      },
      delete: {
        tags: ['Teams'],
        summary: 'Remove a member (yourself: leave). They lose the team’s balance, jobs, results and the team keys they made at once; their running jobs finish on the team',
        security: SIGNED_IN,
        parameters: [idParam('The team id.'), { name: 'user_id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': noContent('Removed.'), '401': auth401, '403': error('Not allowed for your role.'), '404': error('No such team or member.'), '409': error('The team’s last owner cannot leave or be removed.') },
      },
    },
    '/api/models/': {
      get: {
        tags: ['Tools'],
        summary: 'The models this server knows: installed or not, licence, size, commercial use, which `model` choice lands on each',
        responses: { '200': json({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: ref('Model') } } }, 'Every model.') },
      },
    },
    '/api/openapi.json': { get: { tags: ['Site'], summary: 'This document', responses: { '200': json({ type: 'object', required: ['openapi', 'paths'] }, 'The OpenAPI 3.1 document.') } } },
  }
  for (const api of TOOL_APIS) paths[api.tool.apiPath] = toolPath(api)
  paths['/api/v1.0/removebg'] = removeBgPath(rateHeaders)
  Object.assign(paths, correctionPaths(ANYONE))
  Object.assign(paths, feedbackPaths(ANYONE))

  const webhooks: Record<string, unknown> = {}
  for (const event of WEBHOOK_EVENTS) {
    webhooks[event] = {
      post: {
        summary: `${event}, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)`,
        requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
        responses: { '200': { description: 'Any 2xx ends the delivery; anything else, or no answer in 10 s, is retried for about a day.' } },
      },
    }
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Facet Studio API',
      version: '1.0.0',
      description:
        'Every tool over HTTP. Authenticate with an API key (`Authorization: Bearer fs_live_…` or `fs_test_…`, or the key alone in `X-Api-Key`) or a session token from /api/auth/login/ (`Authorization: Token …`). Answers to a key carry RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; a 429 carries Retry-After.',
    },
    servers: [{ url: '/' }],
    tags: [{ name: 'Tools' }, { name: 'Jobs' }, { name: 'Corrections' }, { name: 'Batches' }, { name: 'Teams' }, { name: 'API keys' }, { name: 'Webhooks' }, { name: 'Credits' }, { name: 'Accounts' }, { name: 'Site' }],
    paths,
    webhooks,
    components: {
      schemas,
      securitySchemes: {
        bearerKey: { type: 'http', scheme: 'bearer', description: 'An API key: fs_live_… spends credits, fs_test_… runs without spending them.' },
        removeBgKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'A studio API key where remove.bg clients send theirs (POST /api/v1.0/removebg).' },
        sessionToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Token <token>` from POST /api/auth/login/.' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'fs_session', description: 'The browser session.' },
      },
      headers: {
        'RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests per window for this key.' },
        'RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in this window.' },
        'RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until the window starts afresh.' },
      },
    },
  }
}
