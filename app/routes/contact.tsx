// Contact (spec §2): a form that stores the message, with field errors and a success message.
import { getFormProps, getInputProps, getTextareaProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, type ActionFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { useEffect } from 'react'
import { config } from '~/config.server'
import { CONTACT_RATE_LIMIT, saveContactMessage } from '~/features/contact/messages.server'
import { CONTACT_LIMITS, contactSchema } from '~/features/contact/schemas'
import { clientAddress, consumeRateLimit } from '~/features/security/rate-limit.server'
import { buttonClass, inputClass } from '~/ui/button'
import { Field, FormMessage } from '~/ui/field'
import { PageHero } from '~/ui/section'
import { toast } from '~/ui/toast'

export const meta: MetaFunction = () => [
  { title: 'Contact | Facet Studio' },
  { name: 'description', content: 'Talk to the Facet Studio team. We reply within one business day.' },
]

export const SENT_MESSAGE = 'Thanks, your message is on its way. We reply within one business day.'
const OFFICE = {
  lines: ['Facet Studio', '48 Canal Street, Suite 300', 'Portland, OR 97209', 'United States'],
  directions: 'https://www.openstreetmap.org/search?query=48%20Canal%20Street%20Portland%20OR',
}

export function loader() {
  return { supportEmail: config().SUPPORT_EMAIL }
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await request.formData()
  const submission = parseWithZod(formData, { schema: contactSchema })
  if (submission.status !== 'success') {
    return data({ result: submission.reply(), sent: false }, { status: 400 })
  }
  const limit = await consumeRateLimit(CONTACT_RATE_LIMIT, clientAddress(request))
  if (!limit.ok) {
    return data(
      {
        result: submission.reply({
          formErrors: ['You have sent several messages in a short time. Please wait a few minutes and try again.'],
        }),
        sent: false,
      },
      { status: 429, headers: { 'Retry-After': String(limit.retryAfterSeconds) } },
    )
  }
  await saveContactMessage(submission.value)
  return data({ result: submission.reply({ resetForm: true }), sent: true })
}

function DetailCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <li className="rounded-2xl border border-slate-200 bg-white p-5">
      <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
      <div className="mt-1 text-sm text-slate-600">{children}</div>
    </li>
  )
}

export default function Contact() {
  const { supportEmail } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const sending = navigation.state === 'submitting' && navigation.formAction?.startsWith('/contact')
  const [form, fields] = useForm({
    id: 'contact',
    lastResult: actionData?.result,
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: contactSchema }),
  })

  useEffect(() => {
    if (actionData?.sent) toast({ title: 'Message sent', description: 'We reply within one business day.', variant: 'success' })
  }, [actionData])

  return (
    <>
      <PageHero eyebrow="Contact" title="Talk to our team">
        Questions about the tools, credits or an enterprise set-up? Send us a message and we will reply within one
        business day.
      </PageHero>
      <div className="mx-auto grid max-w-6xl gap-10 px-4 pb-20 sm:px-6 lg:grid-cols-[1.3fr_1fr]">
        <section aria-labelledby="contact-form-title" className="rounded-3xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
          <h2 id="contact-form-title" className="text-xl font-semibold text-slate-900">
            Send a message
          </h2>
          <Form method="post" preventScrollReset className="mt-6 space-y-5" {...getFormProps(form)}>
            {actionData?.sent ? <FormMessage tone="success">{SENT_MESSAGE}</FormMessage> : null}
            {form.errors?.length ? (
              <FormMessage tone="error" id={form.errorId}>
                {form.errors.join(' ')}
              </FormMessage>
            ) : null}
            <div className="grid gap-5 sm:grid-cols-2">
              <Field label="Full name" htmlFor={fields.name.id} errorId={fields.name.errorId} errors={fields.name.errors}>
                <input
                  {...getInputProps(fields.name, { type: 'text' })}
                  autoComplete="name"
                  maxLength={CONTACT_LIMITS.name}
                  className={inputClass}
                />
              </Field>
              <Field label="Work email" htmlFor={fields.email.id} errorId={fields.email.errorId} errors={fields.email.errors}>
                <input
                  {...getInputProps(fields.email, { type: 'email' })}
                  autoComplete="email"
                  maxLength={CONTACT_LIMITS.email}
                  className={inputClass}
                />
              </Field>
            </div>
            <Field
              label="Company"
              hint="(optional)"
              htmlFor={fields.company.id}
              errorId={fields.company.errorId}
              errors={fields.company.errors}
            >
              <input
                {...getInputProps(fields.company, { type: 'text' })}
                autoComplete="organization"
                maxLength={CONTACT_LIMITS.company}
                className={inputClass}
              />
            </Field>
            <Field label="Message" htmlFor={fields.message.id} errorId={fields.message.errorId} errors={fields.message.errors}>
              <textarea
                {...getTextareaProps(fields.message)}
                rows={6}
                maxLength={CONTACT_LIMITS.message}
                className={inputClass}
              />
            </Field>
            <button type="submit" className={buttonClass('primary', 'w-full sm:w-auto')} disabled={sending}>
              {sending ? 'Sending…' : 'Send message'}
            </button>
            <p className="text-xs text-slate-500">We reply within one business day. We use your details only to answer you.</p>
          </Form>
        </section>

        <aside className="space-y-6">
          <ul className="grid gap-4">
            <DetailCard title="Email">
              <a className="font-medium text-indigo-700 hover:underline" href={`mailto:${supportEmail}`}>
                {supportEmail}
              </a>
              <p className="mt-1">Reply within one business day.</p>
            </DetailCard>
            <DetailCard title="Phone">
              <a className="font-medium text-indigo-700 hover:underline" href="tel:+15550100199">
                +1 (555) 010-0199
              </a>
              <p className="mt-1">Monday to Friday, 9:00 to 17:00 Pacific.</p>
            </DetailCard>
            <DetailCard title="Live chat">
              <p className="font-medium text-slate-900">Available 24/5</p>
              <p className="mt-1">Sunday evening to Friday evening, any time zone. Ask for a chat in your message.</p>
            </DetailCard>
          </ul>
          <section aria-labelledby="office" className="rounded-2xl bg-slate-50 p-5">
            <h2 id="office" className="text-sm font-semibold text-slate-900">
              Office
            </h2>
            <address className="mt-1 text-sm not-italic text-slate-600">
              {OFFICE.lines.map((line) => (
                <span key={line} className="block">
                  {line}
                </span>
              ))}
            </address>
            <a
              href={OFFICE.directions}
              className="mt-3 inline-block text-sm font-medium text-indigo-700 hover:underline"
              rel="noopener noreferrer"
              target="_blank"
            >
              Get directions<span className="sr-only"> (opens in a new tab)</span>
            </a>
          </section>
          <section aria-labelledby="enterprise" className="rounded-2xl bg-slate-900 p-6 text-white">
            <h2 id="enterprise" className="text-lg font-semibold">
              Enterprise support plans
            </h2>
            <p className="mt-2 text-sm text-slate-300">
              Running Facet Studio for a large team or on your own infrastructure? We offer onboarding, deployment
              reviews and a named contact. Tell us about your set-up in the form and we will put a plan together.
            </p>
          </section>
        </aside>
      </div>
    </>
  )
}
