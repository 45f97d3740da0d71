// /api: the developer documentation. Authentication (keys, environments, the Token login), a first
// call, every tool's fields and limits (from the catalog), errors, idempotency, rate limits and
// webhooks. Server-rendered text and code: no client code beyond the app's own.
import { data, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import type { ReactNode } from 'react'
import { TOOL_APIS } from '~/features/api-docs/tool-fields'
import { SWITCH_SECTION, SwitchFromRemoveBg } from '~/features/removebg/ui/switch-section'
import { apiDocsFacts } from '~/features/api-docs/page.server'
import { CREDITS_CHARGED_HEADER, ENVIRONMENT_HEADER, TEST_MODE_VALUE, TEST_RESULT_MAX_PIXELS } from '~/features/api-keys/environments'
import { SEAT_RULE } from '~/features/teams/messages'
import { TOOL_LIST } from '~/catalog/tools'
import { MODEL_HEADER } from '~/features/jobs/view'
import { WEBHOOK_EVENTS } from '~/features/webhooks/events'
import { buttonClass } from '~/ui/button'
import { CodeBlock } from '~/ui/code-block'
import { formatCredits } from '~/utils/credits-word'

export const meta: MetaFunction = () => [
  { title: 'API | Facet Studio' },
  {
    name: 'description',
    content: 'The Facet Studio API: every tool over HTTP, with live and test API keys, rate-limit headers, idempotent retries and signed webhooks.',
  },
]

export function loader() {
  return data(apiDocsFacts(), { headers: { 'Cache-Control': 'public, max-age=300' } })
}

const SECTIONS = [
  ['authentication', 'Authentication'],
  ['first-call', 'Your first call'],
  ['tools', 'Tools'],
  [SWITCH_SECTION.id, 'Switch from remove.bg'],
  ['errors', 'Errors'],
  ['jobs', 'Jobs and batches'],
  ['corrections', 'Corrections'],
  ['idempotency', 'Idempotency'],
  ['rate-limits', 'Rate limits'],
  ['webhooks', 'Webhooks'],
  ['teams', 'Teams'],
  ['mcp', 'Agents (MCP)'],
  ['sdk', 'SDK and command line'],
  ['reference', 'Reference'],
] as const

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="scroll-mt-24 border-t border-slate-200 pt-10">
      <h2 id={id} className="text-2xl font-bold tracking-tight text-slate-900">
        {title}
      </h2>
      <div className="mt-4 space-y-4 text-slate-700 [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_code]:text-[0.9em] [&_pre_code]:bg-transparent [&_pre_code]:p-0">
        {children}
      </div>
    </section>
  )
}

/** `label` names the table's scrolling region: unique on the page (each tool's table has the same columns). */
function Table({ label, head, rows }: { label: string; head: string[]; rows: ReactNode[][] }) {
  return (
    // Focusable: on a phone the table scrolls sideways, and a keyboard must reach it.
    <div tabIndex={0} role="region" aria-label={label} className="overflow-x-auto rounded-xl border border-slate-200">
      <table className="w-full min-w-[32rem] text-left text-sm">
        <thead className="bg-slate-50 text-slate-900">
          <tr>
            {head.map((h) => (
              <th key={h} scope="col" className="px-3 py-2 font-semibold">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((row, i) => (
            <tr key={i}>
              {row.map((cell, j) => (
                <td key={j} className="px-3 py-2 align-top">
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

const STATUSES: Array<[string, string]> = [
  ['400', 'A field is missing or not valid; errors lists every problem by field.'],
  ['401', 'No credentials where they are needed, or a key or token that is malformed, revoked or unknown.'],
  ['402', 'Not enough credits for the run (nothing was charged).'],
  ['403', 'Allowed for nobody with these credentials, e.g. an API key creating keys, or a cross-site browser post.'],
  ['404', 'No such endpoint or object, or it belongs to someone else.'],
  ['409', 'The Idempotency-Key names a run that failed or is still running.'],
  ['422', 'The Idempotency-Key was used before for a different request (another file, tool or options); or a file could not be rendered.'],
  ['413', 'The file is larger than the tool’s limit.'],
  ['415', 'The file is not a type the tool accepts.'],
  ['429', 'Too many requests, or your account already has its share of the runs waiting for a worker: wait the seconds in Retry-After.'],
  [
    '503',
    'The studio is busy (the queue is full) or paused: retry after Retry-After. From a tool endpoint with job_url in the body (and Location): the studio restarted before your run ended; the run goes on, charged once, so follow job_url instead of sending it again.',
  ],
]

export default function ApiDocs() {
  const facts = useLoaderData<typeof loader>()
  const curl = `# One Idempotency-Key per run: send the same one again only to retry that run.
KEY=$(openssl rand -hex 16)
curl --fail-with-body ${facts.origin}/api/remove-bg/ \\
  -H "Authorization: Bearer $FACET_API_KEY" \\
  -H "Idempotency-Key: $KEY" \\
  -F "image=@product.jpg" \\
  -F "background=white" -F "format=png" \\
  -o cutout.png -D headers.txt \\
  || { cat cutout.png; echo; rm -f cutout.png; false; }   # a refusal is JSON: show it, keep no broken PNG`
  const javascript = `import { readFile, writeFile } from 'node:fs/promises'

const form = new FormData()
form.append('image', new Blob([await readFile('product.jpg')], { type: 'image/jpeg' }), 'product.jpg')

const response = await fetch('${facts.origin}/api/remove-bg/', {
  method: 'POST',
  headers: {
    Authorization: \`Bearer \${process.env.FACET_API_KEY}\`,
    // One key per run: reuse it only to retry this same run after a lost answer.
    'Idempotency-Key': crypto.randomUUID(),
  },
  body: form,
})
if (!response.ok) throw new Error((await response.json()).error)
console.log('credits left:', response.headers.get('X-Credits-Remaining'))
await writeFile('cutout.png', Buffer.from(await response.arrayBuffer()))`
  const verify = `import express from 'express'
import { Webhook } from 'standardwebhooks'

const webhook = new Webhook(process.env.FACET_WEBHOOK_SECRET) // whsec_…
const app = express()

// Verify the raw body: parsing and re-serialising JSON would change the bytes that were signed.
app.post('/facet-webhook', express.raw({ type: 'application/json' }), (req, res) => {
  let event
  try {
    event = webhook.verify(req.body, req.headers) // checks webhook-id, webhook-timestamp, webhook-signature
  } catch {
    return res.status(400).end()
  }
  // webhook-id stays the same across retries: use it to ignore duplicates.
  console.log(event.type, event.data)
  res.status(204).end()
})`
  const login = `curl ${facts.origin}/api/auth/login/ -H "Content-Type: application/json" \\
  -d '{"email": "you@example.com", "password": "…"}'
# → {"token": "…", "user": {…}, "credits": {"balance": 50}}
curl ${facts.origin}/api/auth/profile/ -H "Authorization: Token $TOKEN"`

  const channels = `export FACET_API_KEY=fs_live_…   # Developers, in your dashboard
curl --fail-with-body ${facts.origin}/api/remove-bg/ -H "Authorization: Bearer $FACET_API_KEY" \\
  -F "image=@photo.jpg" -o cut.png                                                # HTTP
# From the studio's folder (npm install done), with FACET_URL=${facts.origin}:
npx tsx packages/sdk/examples/remove-background.ts photo.jpg cut.png              # SDK
npx facet remove-bg photo.jpg -o cut.png                                          # command line
npm run --silent mcp                                                              # MCP over stdio (below)`

  const mcpHttp = `{
  "mcpServers": {
    "facet-studio": {
      "url": "${facts.origin}/mcp",
      "headers": { "Authorization": "Bearer fs_live_…" }
    }
  }
}`
  const mcpStdio = `{
  "mcpServers": {
    "facet-studio": {
      "command": "npm",
      "args": ["run", "--silent", "mcp", "--prefix", "/path/to/facet-studio"],
      "env": { "FACET_URL": "${facts.origin}", "FACET_API_KEY": "fs_live_…" }
    }
  }
}`

  return (
    <>
      <section className="bg-gradient-to-b from-slate-900 to-slate-800 text-white">
        <div className="mx-auto max-w-4xl px-4 py-14 sm:px-6 sm:py-20">
          <p className="inline-flex rounded-full bg-white/10 px-3 py-1 text-xs font-semibold text-indigo-200">Developer API</p>
          <h1 className="mt-5 text-4xl font-bold tracking-tight sm:text-5xl">Facet Studio API</h1>
          <p className="mt-5 max-w-2xl text-lg text-slate-300">
            Every tool over HTTP: send an image as a multipart form, get the result back. Live and test keys, rate-limit headers, idempotent retries and signed webhooks.
          </p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Link to="/dashboard#developers" className={buttonClass('inverse')}>
              Create an API key
            </Link>
            <a href="/api/openapi.json" className={buttonClass('secondary', 'border-white/30 bg-transparent text-white hover:bg-white/10')}>
              OpenAPI document
            </a>
          </div>
        </div>
      </section>

      <div className="mx-auto max-w-4xl px-4 py-12 sm:px-6">
        <nav aria-label="On this page" className="rounded-xl border border-slate-200 bg-slate-50 p-4">
          <p className="text-sm font-semibold text-slate-900">On this page</p>
          <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-sm">
            {SECTIONS.map(([id, title]) => (
              <li key={id}>
                <a href={`#${id}`} className="text-indigo-700 underline">
                  {title}
                </a>
              </li>
            ))}
          </ul>
        </nav>

        <div className="mt-10 space-y-12">
          <Section id="authentication" title="Authentication">
            <p>
              Create API keys in the Developers section of your <Link to="/dashboard#developers" className="text-indigo-700 underline">dashboard</Link> (or with{' '}
              <code>POST /api/keys/</code>) and send one as <code>Authorization: Bearer &lt;key&gt;</code>. A key is shown once, when it is made; the studio keeps only a hash
              of it. Revoke a key and it stops working at once.
            </p>
            <ul className="list-disc space-y-2 pl-6">
              <li>
                <strong>Live keys</strong> (<code>fs_live_…</code>) spend your credits, like the studio does.
              </li>
              <li>
                <strong>Test keys</strong> (<code>fs_test_…</code>) run the whole contract (validation, results, webhooks) without spending credits. Their results are
                capped at {(TEST_RESULT_MAX_PIXELS / 1_000_000).toLocaleString('en-US')} megapixels, and every answer says{' '}
                <code>
                  {ENVIRONMENT_HEADER}: {TEST_MODE_VALUE}
                </code>
                .
              </li>
            </ul>
            <p>
              Keys carry a checksum, so a mistyped key is refused at once and a leaked one can be recognised by secret scanners. A key can use every endpoint except
              creating and revoking keys, which needs you signed in. Scripts can also sign in with a password and send the session token:
            </p>
            <CodeBlock label="Sign in with a password (session token)">{login}</CodeBlock>
            <p>
              A call with no key and no token runs as a visitor. Free credits for visitors are counted per network address and day, not per cookie: past them the answer
              is 402, naming where to sign up and (with <code>Retry-After</code>) when they renew at 00:00 UTC. A studio may also require an account for the API (401).
            </p>
          </Section>

          <Section id="first-call" title="Your first call">
            <p>Remove the background of a product photo. The answer is the PNG itself; the headers carry your balance and the credits the call took.</p>
            <CodeBlock label="curl">{curl}</CodeBlock>
            <CodeBlock label="JavaScript (Node 18 or newer)">{javascript}</CodeBlock>
            <p>The same first call in each channel: HTTP, the SDK, the command line and an agent&apos;s MCP server.</p>
            <CodeBlock label="Each channel">{channels}</CodeBlock>
          </Section>

          <Section id="tools" title="Tools">
            <p>
              Every tool takes <code>multipart/form-data</code>. A successful answer carries <code>X-Credits-Remaining</code> and <code>{CREDITS_CHARGED_HEADER}</code>. Runs
              are charged before they start and refunded when they fail.
            </p>
            {TOOL_APIS.map((api) => (
              <div key={api.tool.slug} className="rounded-xl border border-slate-200 p-4">
                <h3 className="text-lg font-semibold text-slate-900">
                  {api.tool.name}: <code>POST {api.tool.apiPath}</code>
                </h3>
                <p className="mt-1 text-sm text-slate-600">
                  {api.tool.description} {formatCredits(facts.costs[api.tool.slug])} a run.
                  {api.tool.signInRequired ? ' Signed-in callers (a key or a token) only.' : ''}
                </p>
                <div className="mt-3">
                  <Table
                    label={`${api.tool.name} fields`}
                    head={['Field', 'Required', 'What it is']}
                    rows={api.fields.map((f) => [<code key="n">{f.name}</code>, f.required ? 'yes' : 'no', f.description])}
                  />
                </div>
                <p className="mt-2 text-sm">
                  <strong>Answer:</strong> {api.answer}
                </p>
              </div>
            ))}
            <h3 className="text-lg font-semibold text-slate-900">
              Models: <code>GET /api/models/</code>
            </h3>
            <p>
              Lists every model the tools know: whether this server has it installed and may use it, its licence, its size, whether its weights may be used
              commercially, and which background remover <code>model</code> value lands on it. Weights not licensed for commercial use (GFPGAN) are used only
              where the operator allows them. The remover&rsquo;s answer names the model that made the cutout in <code>{MODEL_HEADER}</code>.
            </p>
          </Section>

          <Section id={SWITCH_SECTION.id} title={SWITCH_SECTION.title}>
            <SwitchFromRemoveBg origin={facts.origin} />
          </Section>

          <Section id="errors" title="Errors">
            <p>
              Errors are JSON: <code>{'{"error": "…", "detail": "…"}'}</code> (the same message in both). A 400 adds <code>errors</code>, every problem by field.
              The tool, job and batch endpoints add <code>remaining</code>: your balance after the failure, or <code>null</code> where the call did not say whose
              balance it was; a batch refused for passing your monthly cap on a team adds <code>cost</code>, what the whole batch would cost. The remove.bg-compatible endpoint answers remove.bg&apos;s own <code>{'{"errors": [{"title", "code"}]}'}</code> instead.
            </p>
            <Table label="Status codes" head={['Status', 'Meaning']} rows={STATUSES.map(([status, meaning]) => [<code key="s">{status}</code>, meaning])} />
          </Section>

          <Section id="jobs" title="Jobs and batches">
            <p>
              Every run is a job on the studio&apos;s queue. The tool endpoints above wait for their job and answer with its result; for long runs, send the same fields plus{' '}
              <code>tool</code> (one of {TOOL_LIST.map((t) => t.slug).join(', ')}) to <code>POST /api/jobs/</code>. It answers <code>202 {'{id, status, url}'}</code> with a{' '}
              <code>Location</code> at once; <code>GET /api/jobs/&lt;id&gt;/</code> answers <code>{'{id, tool, status, progress, stage, result_url, error, remaining, elapsed_seconds, estimated_seconds_left}'}</code>{' '}
              (status is queued, running, succeeded or failed; progress 0 to 100, from the work itself; elapsed_seconds and estimated_seconds_left as the tool page shows them,
              null where there is no honest estimate and once the job ended), and <code>GET /api/jobs/&lt;id&gt;/answer/</code> gives an ended
              job&apos;s answer exactly as the tool&apos;s endpoint would. Jobs are yours alone: anyone else gets 404.
            </p>
            <p>
              A batch runs one tool over many files: <code>POST /api/batches/</code> with <code>tool</code>, that tool&apos;s options and up to {facts.batchMaxFiles} files as
              repeated file fields, or one zip of them ({facts.batchMaxMegabytes} MB in all); more files, in the form or in the zip, answer 400 naming the limit (none is
              dropped). It answers <code>202 {'{id, url, total, skipped}'}</code>, <code>skipped</code> listing the zip&apos;s folders and hidden files (such as{' '}
              <code>__MACOSX/</code> or <code>.DS_Store</code>), which are not run;{' '}
              <code>GET /api/batches/&lt;id&gt;/</code> reports each item (<code>{'{name, status, state, status_text, progress, credits_charged, result_url, thumbnail_url, error}'}</code>;{' '}
              <code>state</code> is waiting, running, done, no_face or failed, <code>no_face</code> being a face tool&apos;s file with no face in it: delivered unchanged, not
              charged), and <code>GET /api/batches/&lt;id&gt;/download/</code> is a zip of the results under their original names (where a name is not safe on every system, the nearest safe one), with <code>manifest.json</code> listing every
              file in order as <code>{'{name, file, renamed, state, status_text, credits_charged, error}'}</code> (<code>file</code>: its result&apos;s name in the zip, or null) and{' '}
              <code>errors.json</code> (<code>{'[{name, error}]'}</code>) for the items that failed or found no face. Each item is charged when it runs and refunded if it fails; a batch your balance
              cannot pay for in full is refused before anything runs, saying how many items it covers. A test key runs everything free, with results of at most{' '}
              {TEST_RESULT_MAX_PIXELS / 1_000_000} megapixels. The <code>job.succeeded</code>, <code>job.failed</code> and <code>batch.completed</code> webhooks tell you when work ends.
            </p>
          </Section>

          <Section id="corrections" title="Corrections">
            <p>
              A background-removal or face-blur result can be corrected without running a model and without a charge: every tool answer names its job in{' '}
              <code>X-Facet-Job-Id</code>. <code>GET /api/jobs/&lt;id&gt;/corrections/</code> lists the result&apos;s size, the model&apos;s parts and the detected faces;{' '}
              <code>POST /api/jobs/&lt;id&gt;/corrections/</code> (multipart) takes, for a cutout, <code>mask</code> (a greyscale PNG of that size: white restores, black
              removes, mid-grey 128 leaves the model&apos;s matte), <code>feather</code> (0 to 20 px), <code>grow</code> (−20 to 20 px), <code>decontaminate</code> and{' '}
              <code>parts</code> (<code>{'{"2": "keep"}'}</code>), or for a face-blur result <code>faces</code> (a JSON array of <code>{'{x, y, width, height}'}</code>). It answers the
              result rendered again with every option the run had, with <code>X-Credits-Charged: 0</code>, and the job&apos;s <code>result_url</code> then serves it. A plain grey
              mask gives back the uncorrected result exactly. <code>GET /api/jobs/&lt;id&gt;/</code> of a face-blur job lists the detected <code>faces</code>. Corrections are kept as long as the result.
            </p>
          </Section>

          <Section id="idempotency" title="Idempotency">
            <p>
              Send an <code>Idempotency-Key</code> header (any string up to 200 characters, unique per run you mean) to retry safely. A retry of a run that delivered gets the
              same answer again with <code>Idempotent-Replayed: true</code> and no second charge; a key whose run failed, or is still running, answers 409; the same key with a different request answers 422.
            </p>
            <p>
              A key belongs to its account (the team’s, when you work as one), its environment and the credential that sent it: your test key and your live key, or two of
              your API keys, never share a key. The same key sent first with <code>fs_test_</code> and then with <code>fs_live_</code> runs live, charged and full size.
            </p>
          </Section>

          <Section id="rate-limits" title="Rate limits">
            <p>
              Each API key may make {facts.rateLimitPerMinute.toLocaleString('en-US')} requests a minute. Every answer to a key says where it stands:{' '}
              <code>RateLimit-Limit</code>, <code>RateLimit-Remaining</code> and <code>RateLimit-Reset</code> (seconds until the window starts afresh). Past the limit the
              answer is 429 with <code>Retry-After</code> in seconds.
            </p>
          </Section>

          <Section id="webhooks" title="Webhooks">
            <p>
              Register an HTTPS endpoint on the dashboard or with <code>POST /api/webhooks/</code> <code>{'{"url": "…", "events": [...]}'}</code>; the answer holds its signing
              secret (<code>whsec_…</code>), once. Events: {WEBHOOK_EVENTS.map((e, i) => <span key={e}>{i ? ', ' : ''}<code>{e}</code></span>)}.
            </p>
            <p>
              Each delivery is a JSON <code>{'{"type", "timestamp", "data"}'}</code> signed per the Standard Webhooks specification, with the headers <code>webhook-id</code>,{' '}
              <code>webhook-timestamp</code> and <code>webhook-signature</code>. Answer with any 2xx within {facts.timeoutSeconds} seconds; anything else is retried after{' '}
              {facts.retrySchedule.join(', ')} ({facts.attempts} attempts over about a day). Redirects are not followed, and only public addresses are called. The dashboard
              lists each delivery’s attempts and last answer, and redelivers on request.
            </p>
            <CodeBlock label="Verify a signature (Node, the standardwebhooks package)">{verify}</CodeBlock>
          </Section>

          <Section id="teams" title="Teams">
            <p>
              A team shares one credit balance between its members. Send <code>X-Team: &lt;team id&gt;</code> with a session token or your own key to run a tool, a job
              or a batch on the team&apos;s credits; <code>X-Credits-Remaining</code> is then the team&apos;s balance. A team key (<code>POST /api/keys/</code> with{' '}
              <code>team_id</code>, by the team&apos;s owners and admins) always works as its team. A run that would pass your monthly cap on the team answers 402 with a
              message naming the cap, and charges nothing; <code>X-Team</code> naming a team you are not in answers 403. A team&apos;s webhook endpoints hear every run
              it pays for: its owners and admins manage them with <code>X-Team</code> on <code>/api/webhooks/</code> (or with a team key).
            </p>
            <p>
              <code>POST /api/teams/</code> <code>{'{"name"}'}</code> creates one (you are its owner); <code>GET /api/teams/&lt;id&gt;/</code> shows its balance, seats and
              members with their spending this month; <code>POST /api/teams/&lt;id&gt;/invites/</code> <code>{'{"email", "role"}'}</code> mails a single-use link valid for 7
              days, accepted with <code>POST /api/teams/invites/accept/</code> <code>{'{"token"}'}</code> signed in as that address; <code>PATCH</code> and{' '}
              <code>DELETE /api/teams/&lt;id&gt;/members/&lt;user_id&gt;/</code> change a member&apos;s role and cap, or remove them.
            </p>
            <p>{SEAT_RULE} An invite past the seats answers 409, and so does accepting one when every member seat is taken.</p>
          </Section>

          <Section id="mcp" title="Agents (MCP)">
            <p>
              The studio is an MCP server: an assistant or an IDE that speaks the Model Context Protocol can use every tool, a batch, your balance and a price quote. It
              authenticates with an API key (a test key runs in test mode), and each run is the API&apos;s own: the same limits, team (<code>X-Team</code> or a{' '}
              <code>team</code> argument), idempotency (<code>idempotency_key</code>) and ledger. Every paid tool takes <code>max_credits</code> and refuses, charging
              nothing, when the run would cost more; every answer says what it charged and what is left. Images go in as base64 (or <code>image_url</code>, a public
              address the studio fetches) and come back as image content with <code>result_url</code>, a link that opens the result for an hour without a key;{' '}
              <code>return_image: false</code> answers the link alone, for results too large to carry in a message.
            </p>
            <CodeBlock label="MCP client, over HTTP">{mcpHttp}</CodeBlock>
            <CodeBlock label="MCP client, as a process (stdio)">{mcpStdio}</CodeBlock>
            <p>
              The process form relays to a running studio (<code>FACET_URL</code>); run it from the studio&apos;s folder. <code>--silent</code> keeps npm&apos;s own
              lines out of the protocol.
            </p>
          </Section>

          <Section id="sdk" title="SDK and command line">
            <p>
              The studio&apos;s repository holds a typed client, <code>@facet-studio/sdk</code>, generated from this API&apos;s OpenAPI document, and the{' '}
              <code>facet</code> command on it. From the repository&apos;s root, after <code>npm install</code>, with a key in <code>FACET_API_KEY</code> (or{' '}
              <code>{'{"apiKey": "fs_live_…"}'}</code> in <code>~/.config/facet/config.json</code>):
            </p>
            <CodeBlock label="Command line">{`export FACET_URL=${facts.origin} FACET_API_KEY=fs_live_…
npx facet remove-bg photo.jpg -o cut.png           # --model, --format, --bg
npx facet blur "shots/*.jpg" --blur 24 -o blurred  # a folder or a glob: a batch, with a progress bar
npx facet balance`}</CodeBlock>
            <CodeBlock label="SDK (TypeScript)">{`import { createClient, FacetError } from '@facet-studio/sdk'

const facet = createClient({ baseUrl: '${facts.origin}', apiKey: process.env.FACET_API_KEY! })
const cutout = await facet.removeBackground('photo.jpg', { format: 'webp' }) // a path, Buffer, Blob or stream
// cutout.data (the image), cutout.creditsRemaining; a refusal throws FacetError with the studio's message`}</CodeBlock>
            <p>
              Exit codes: 0 done, 1 usage, 2 refused by the studio (4xx), 3 studio failure or no answer, 4 some files of a batch failed. The SDK also waits on jobs and
              batches with progress (<code>jobs.wait</code>, <code>batches.wait</code>) and verifies webhooks (<code>verifyWebhook</code>).
            </p>
          </Section>

          <Section id="reference" title="Reference">
            <Table
              label="Endpoints"
              head={['Endpoint', 'What it does']}
              rows={[
                ['POST /api/keys/', 'Create a key {name, environment: "live" | "test"} → 201 {id, name, environment, prefix, key}'],
                ['GET /api/keys/', 'Your keys with their last use and recent runs and credits (never the key)'],
                ['DELETE /api/keys/<id>/', 'Revoke a key → 204'],
                ['POST /api/webhooks/', 'Register an endpoint {url, events} → 201 {id, url, events, secret}'],
                ['GET /api/webhooks/', 'Your endpoints and their recent deliveries'],
                ['DELETE /api/webhooks/<id>/', 'Delete an endpoint → 204'],
                ['POST /api/webhooks/deliveries/<id>/redeliver/', 'Attempt a delivery once more → 202'],
                ['POST /api/teams/', 'Create a team {name} → 201 {id, name}'],
                ['GET /api/teams/<id>/', 'A team’s balance, seats and members with their spending and caps'],
                ['POST /api/teams/<id>/invites/', 'Invite {email, role} → 201, and a mailed link'],
                ['POST /api/teams/invites/accept/', 'Accept an invite {token} → 200 {team_id}'],
                ['PATCH /api/teams/<id>/members/<user_id>/', 'Change a member’s {role, cap}; DELETE removes them (yourself: leave)'],
                ['GET /api/teams/<id>/activity/', 'Who ran which tool, when, for how much'],
                ['GET /api/credits/balance/', 'Your balance'],
                ['GET /api/credits/transactions/', 'Your ledger, newest first'],
                ['GET /api/results/<id>', 'A stored result (the restorer’s restored_url): for your key, token or cookie for 24 hours; a signed link (expires, signature) for anyone holding it for one hour'],
              ].map(([endpoint, what]) => [<code key="e">{endpoint}</code>, what])}
            />
            <p>
              The whole contract, machine-readable: <a href="/api/openapi.json" className="text-indigo-700 underline">/api/openapi.json</a> (OpenAPI 3.1).
            </p>
          </Section>
        </div>
      </div>
    </>
  )
}
