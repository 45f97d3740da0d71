// The team page's "Add your credits" panel: any member moves credits from their own balance into the
// team. A plain POST to the page (intent "transfer"), so it works without JavaScript; conform + zod
// check the amount in the browser once it runs. The rule (how much may move) is the domain's: the
// panel only says it, and a refused form shows the domain's message.
import { getFormProps, getInputProps } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { formatCredits } from '~/features/credits/display'
import { buttonClass, inputClass } from '~/ui/button'
import { MAX_TRANSFER, transferFormSchema } from '../transfer'
import { FormError } from './parts'
import { useTeamForm } from './use-team-form'

export interface TransferAllowanceView {
  balance: number
  movable: number
  floor: number
}

export function TransferSection({ teamName, own }: { teamName: string; own: TransferAllowanceView }) {
  const [form, fields] = useTeamForm('transfer', transferFormSchema)
  const navigation = useNavigation()
  const busy = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'transfer'
  const amountProps = getInputProps(fields.amount, { type: 'number' })
  const hintId = `${fields.amount.id}-hint`
  const nothing = own.movable === 0
  return (
    <section aria-labelledby="team-transfer" className="min-w-0 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm" data-testid="team-transfer">
      <h2 id="team-transfer" className="text-lg font-semibold text-slate-900">
        Add your credits
      </h2>
      <p className="mt-2 text-sm text-slate-700">
        Move credits from your own balance to {teamName}. Your balance: <span className="font-semibold tabular-nums">{formatCredits(own.balance)}</span>.
      </p>
      <Form method="post" {...getFormProps(form)} className="mt-3 space-y-2">
        <input type="hidden" name="intent" value="transfer" />
        <FormError errors={form.errors} />
        <label htmlFor={fields.amount.id} className="block text-sm font-medium text-slate-800">
          Credits to move
        </label>
        <div className="flex gap-2">
          <input
            {...amountProps}
            key={amountProps.key}
            min={1}
            max={Math.max(1, Math.min(own.movable, MAX_TRANSFER))}
            step={1}
            inputMode="numeric"
            aria-describedby={[hintId, amountProps['aria-describedby']].filter(Boolean).join(' ')}
            className={`${inputClass} min-w-0 flex-1 sm:w-32 sm:flex-none`}
          />
          <button type="submit" className={buttonClass('primary', 'shrink-0 whitespace-nowrap px-3.5 py-1.5')} disabled={busy}>
            {busy ? 'Moving...' : 'Move credits'}
          </button>
        </div>
        <p id={hintId} className="text-xs text-slate-600">
          {nothing ? 'You have nothing to move now. ' : `You can move up to ${formatCredits(own.movable)}. `}
          {own.floor > 0 ? `The first ${formatCredits(own.floor)} of your balance stay with you (your daily allowance).` : null} The move cannot be undone.
        </p>
        <FormError errors={fields.amount.errors} id={fields.amount.errorId} />
      </Form>
    </section>
  )
}
