// Form pieces of the account screens: labelled inputs with their errors, a password input with a
// show/hide toggle (only once JavaScript runs: without it the toggle could not work), and alerts.
import { getInputProps, type FieldMetadata } from '@conform-to/react'
import { useState, type ReactNode } from 'react'
import { inputClass } from '~/ui/button'
import { useHydrated } from '~/ui/use-hydrated'

export function FieldError({ id, errors }: { id: string; errors: string[] | undefined }) {
  if (!errors?.length) return null
  return (
    <p id={id} className="mt-1.5 text-sm text-red-700">
      {errors[0]}
    </p>
  )
}

export function TextField({
  field,
  label,
  type = 'text',
  autoComplete,
  hint,
}: {
  field: FieldMetadata<string | null | undefined>
  label: string
  type?: 'text' | 'email'
  autoComplete?: string
  hint?: ReactNode
}) {
  const props = getInputProps(field, { type, ariaDescribedBy: hint ? `${field.id}-hint` : undefined })
  return (
    <div>
      <label htmlFor={field.id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <input {...props} key={props.key} autoComplete={autoComplete} className={`mt-1.5 ${inputClass}`} />
      {hint ? (
        <p id={`${field.id}-hint`} className="mt-1.5 text-xs text-slate-600">
          {hint}
        </p>
      ) : null}
      <FieldError id={field.errorId} errors={field.errors} />
    </div>
  )
}

export function PasswordField({
  field,
  label,
  autoComplete,
  hint,
}: {
  field: FieldMetadata<string | null | undefined>
  label: string
  autoComplete: 'current-password' | 'new-password'
  hint?: string
}) {
  const hydrated = useHydrated()
  const [visible, setVisible] = useState(false)
  const hintId = `${field.id}-hint`
  const props = getInputProps(field, { type: 'password', ariaDescribedBy: hint ? hintId : undefined })
  return (
    <div>
      <label htmlFor={field.id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <div className="relative mt-1.5">
        <input
          {...props}
          key={props.key}
          type={visible ? 'text' : 'password'}
          autoComplete={autoComplete}
          className={`${inputClass} ${hydrated ? 'pr-16' : ''}`}
        />
        {hydrated ? (
          <button
            type="button"
            onClick={() => setVisible((v) => !v)}
            aria-controls={field.id}
            aria-pressed={visible}
            aria-label={visible ? `Hide ${label.toLowerCase()}` : `Show ${label.toLowerCase()}`}
            className="absolute inset-y-1 right-1 rounded-lg px-3 text-xs font-semibold text-slate-600 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-indigo-600"
          >
            {visible ? 'Hide' : 'Show'}
          </button>
        ) : null}
      </div>
      {hint ? (
        <p id={hintId} className="mt-1.5 text-xs text-slate-600">
          {hint}
        </p>
      ) : null}
      <FieldError id={field.errorId} errors={field.errors} />
    </div>
  )
}

export function Alert({
  variant,
  title,
  children,
  testId,
}: {
  variant: 'destructive' | 'success' | 'info'
  title: string
  children?: ReactNode
  testId?: string
}) {
  const styles = {
    destructive: 'border-red-200 bg-red-50 text-red-900',
    success: 'border-emerald-200 bg-emerald-50 text-emerald-900',
    info: 'border-indigo-200 bg-indigo-50 text-indigo-900',
  }[variant]
  return (
    <div role={variant === 'destructive' ? 'alert' : 'status'} data-testid={testId} className={`rounded-xl border p-4 ${styles}`}>
      <p className="text-sm font-semibold">{title}</p>
      {children ? <div className="mt-1 text-sm">{children}</div> : null}
    </div>
  )
}
