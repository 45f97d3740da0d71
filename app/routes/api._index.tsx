// /api (spec §2): the developer API teaser, with a waitlist form that stores the email.
import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, type ActionFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useNavigation } from '@remix-run/react'
import { useEffect } from 'react'
import { joinWaitlist, WAITLIST_RATE_LIMIT } from '~/features/contact/messages.server'
import { CONTACT_LIMITS, waitlistSchema } from '~/features/contact/schemas'
import { clientAddress, consumeRateLimit } from '~/features/security/rate-limit.server'
import { buttonClass, inputClass } from '~/ui/button'
import { FieldErrors, FormMessage } from '~/ui/field'
import { SectionHeading } from '~/ui/section'
import { toast } from '~/ui/toast'

export const meta: MetaFunction = () => [
  { title: 'API | Facet Studio' },
  {
    name: 'description',
    content: 'The Facet Studio API is coming soon: every tool over HTTP, with per-environment keys and signed webhooks.',
  },
]

export const WAITLIST_JOINED = 'You are on the list. We will email you when the API launches.'
export const WAITLIST_ALREADY = 'You are already on the list. We will email you when the API launches.'

export async function action({ request }: ActionFunctionArgs) {
  const formData = await request.formData()
  const submission = parseWithZod(formData, { schema: waitlistSchema })
  if (submission.status !== 'success') {
    return data({ result: submission.reply(), message: null }, { status: 400 })
  }
  const limit = await consumeRateLimit(WAITLIST_RATE_LIMIT, clientAddress(request))
  if (!limit.ok) {
    return data(
      { result: submission.reply({ formErrors: ['Too many signups from your network. Please try again later.'] }), message: null },
      { status: 429, headers: { 'Retry-After': String(limit.retryAfterSeconds) } },
    )
  }
  const { alreadyJoined } = await joinWaitlist(submission.value)
  return data({
    result: submission.reply({ resetForm: true }),
    message: alreadyJoined ? WAITLIST_ALREADY : WAITLIST_JOINED,
  })
}

const UPCOMING = [
  { title: 'Every tool over HTTP', text: 'Background removal, face restoration, enhancement, face blurring and SVG export, one endpoint each.' },
  { title: 'Per-environment API keys', text: 'Separate keys for development, staging and production, each revocable on its own.' },
  { title: 'Signed webhooks', text: 'Long jobs call you back with an HMAC-signed payload, so you can trust what arrives.' },
] as const

const SAMPLE = `curl https://facet.studio/v1/images \\
  -H "Authorization: Bearer $FACET_API_KEY" \\
  -F "image=@portrait.jpg" \\
  -F "mode=remove-background" \\
  -o cutout.png`

export default function ApiTeaser() {
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const sending = navigation.state === 'submitting'
  const [form, fields] = useForm({
    id: 'waitlist',
    lastResult: actionData?.result,
    shouldValidate: 'onSubmit',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: waitlistSchema }),
  })

  useEffect(() => {
    if (actionData?.message) toast({ title: 'Added to the waitlist', description: actionData.message, variant: 'success' })
  }, [actionData])

  return (
    <>
      <section className="bg-gradient-to-b from-slate-900 to-slate-800 text-white">
        <div className="mx-auto max-w-4xl px-4 py-16 text-center sm:px-6 sm:py-24">
          <p className="inline-flex rounded-full bg-white/10 px-3 py-1 text-xs font-semibold text-indigo-200">Developer API</p>
          <h1 className="mt-5 text-4xl font-bold tracking-tight sm:text-5xl">API Coming Soon</h1>
          <p className="mx-auto mt-5 max-w-2xl text-lg text-slate-300">
            Put Facet Studio’s tools into your own pipeline: upload an image, pick a mode, get the result back.
          </p>
          <Form method="post" preventScrollReset className="mx-auto mt-8 max-w-lg text-left" {...getFormProps(form)}>
            <div className="flex flex-col gap-3 sm:flex-row">
              <label htmlFor={fields.email.id} className="sr-only">
                Email address
              </label>
              <input
                {...getInputProps(fields.email, { type: 'email' })}
                placeholder="you@company.com"
                autoComplete="email"
                maxLength={CONTACT_LIMITS.email}
                className={`${inputClass} flex-1`}
              />
              <button type="submit" className={buttonClass('primary', 'shrink-0')} disabled={sending}>
                {sending ? 'Joining…' : 'Notify me'}
              </button>
            </div>
            <div className="mt-2 [&_ul]:text-red-300">
              <FieldErrors id={fields.email.errorId} errors={fields.email.errors} />
            </div>
            {form.errors?.length ? (
              <div className="mt-3">
                <FormMessage tone="error" id={form.errorId}>
                  {form.errors.join(' ')}
                </FormMessage>
              </div>
            ) : null}
            {actionData?.message ? (
              <div className="mt-3">
                <FormMessage tone="success">{actionData.message}</FormMessage>
              </div>
            ) : null}
          </Form>
          <p className="mt-6 text-sm font-medium text-indigo-200">Expected launch: Q1 2026</p>
        </div>
      </section>

      <section aria-labelledby="upcoming" className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
        <SectionHeading id="upcoming" eyebrow="What is coming" title="Built for production pipelines" />
        <ul className="mt-10 grid gap-5 md:grid-cols-3">
          {UPCOMING.map((f) => (
            <li key={f.title} className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
              <h3 className="text-lg font-semibold text-slate-900">{f.title}</h3>
              <p className="mt-2 text-sm leading-relaxed text-slate-600">{f.text}</p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="preview" className="bg-slate-50 py-16">
        <div className="mx-auto grid max-w-6xl items-center gap-10 px-4 sm:px-6 lg:grid-cols-2">
          <div>
            <SectionHeading
              id="preview"
              align="left"
              eyebrow="Preview"
              title="One multipart call"
              intro="Send the image and a mode as multipart form fields, authenticated with your bearer key. The result streams back as a PNG."
            />
            <ul className="mt-6 space-y-3 text-slate-700">
              <li>
                <strong className="text-slate-900">Per-environment keys</strong> keep test traffic out of production.
              </li>
              <li>
                <strong className="text-slate-900">Signed webhooks</strong> tell you when a long job finishes.
              </li>
              <li>
                <strong className="text-slate-900">Enterprise telemetry</strong>: usage and latency per key, exportable
                to your monitoring.
              </li>
            </ul>
          </div>
          <figure className="m-0 overflow-hidden rounded-2xl bg-slate-900 shadow-xl">
            <figcaption className="border-b border-white/10 px-4 py-2 text-xs text-slate-400">Sample request (preview; subject to change)</figcaption>
            <pre tabIndex={0} className="overflow-x-auto p-4 text-sm leading-relaxed text-emerald-200">
              <code>{SAMPLE}</code>
            </pre>
          </figure>
        </div>
      </section>
    </>
  )
}
