// The console's two write forms: grant (or take back) credits with a reason, and set a team's seats.
// Plain POST forms (they work without JavaScript); the action's refusal comes back as the form's
// error, with the operator channel's own message.
import { Form, useActionData, useNavigation } from '@remix-run/react'
import { SEAT_RULE } from '~/features/teams/messages'
import { buttonClass, inputClass } from '~/ui/button'
import { Field, FormMessage } from '~/ui/field'

export interface ConsoleFormReply {
  form: 'grant' | 'seats'
  errors: Record<string, string[] | undefined>
  formError?: string
}

function useReply(form: ConsoleFormReply['form']) {
  const reply = useActionData<ConsoleFormReply>()
  return reply?.form === form ? reply : undefined
}

function ErrorBox({ text }: { text: string | undefined }) {
  if (!text) return null
  return (
    <FormMessage tone="error" id="console-form-error">
      {text}
    </FormMessage>
  )
}

export function GrantForm({ whose }: { whose: string }) {
  const reply = useReply('grant')
  const busy = useNavigation().formData?.get('intent') === 'grant'
  const amountErrors = reply?.errors.amount
  const reasonErrors = reply?.errors.reason
  return (
    <Form method="post" className="mt-3 space-y-4 rounded-xl border border-slate-200 p-4" aria-labelledby="grant-heading">
      <h2 id="grant-heading" className="text-lg font-semibold text-slate-900">
        Grant credits
      </h2>
      <p className="text-sm text-slate-600">To {whose}. A negative amount takes credits back (never below zero). The reason is shown in the ledger.</p>
      <ErrorBox text={reply?.formError} />
      <input type="hidden" name="intent" value="grant" />
      <Field label="Amount" htmlFor="grant-amount" errorId="grant-amount-error" errors={amountErrors} hint="(credits, e.g. 25 or -5)">
        <input
          id="grant-amount"
          name="amount"
          inputMode="numeric"
          required
          autoComplete="off"
          className={inputClass}
          aria-invalid={amountErrors ? true : undefined}
          aria-describedby={amountErrors ? 'grant-amount-error' : undefined}
        />
      </Field>
      <Field label="Reason" htmlFor="grant-reason" errorId="grant-reason-error" errors={reasonErrors}>
        <input
          id="grant-reason"
          name="reason"
          required
          maxLength={200}
          autoComplete="off"
          className={inputClass}
          aria-invalid={reasonErrors ? true : undefined}
          aria-describedby={reasonErrors ? 'grant-reason-error' : undefined}
        />
      </Field>
      <button type="submit" className={buttonClass('primary')} disabled={busy}>
        Grant credits
      </button>
    </Form>
  )
}

export function SeatsForm({ current }: { current: number }) {
  const reply = useReply('seats')
  const busy = useNavigation().formData?.get('intent') === 'seats'
  const errors = reply?.errors.seats
  return (
    <Form method="post" className="mt-3 space-y-4 rounded-xl border border-slate-200 p-4" aria-labelledby="seats-heading">
      <h2 id="seats-heading" className="text-lg font-semibold text-slate-900">
        Change seats
      </h2>
      <p className="text-sm text-slate-600">{SEAT_RULE}</p>
      <ErrorBox text={reply?.formError} />
      <input type="hidden" name="intent" value="seats" />
      <Field label="Seats" htmlFor="seats-count" errorId="seats-count-error" errors={errors}>
        <input
          id="seats-count"
          name="seats"
          inputMode="numeric"
          required
          defaultValue={String(current)}
          autoComplete="off"
          className={inputClass}
          aria-invalid={errors ? true : undefined}
          aria-describedby={errors ? 'seats-count-error' : undefined}
        />
      </Field>
      <button type="submit" className={buttonClass('secondary')} disabled={busy}>
        Change seats
      </button>
    </Form>
  )
}
