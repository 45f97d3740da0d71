// A labelled form control with its error messages wired up for assistive technology.
import type { ReactNode } from 'react'

export function FieldErrors({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors?.length) return null
  return (
    <ul id={id} className="mt-1.5 space-y-0.5 text-sm text-red-700">
      {errors.map((e) => (
        <li key={e}>{e}</li>
      ))}
    </ul>
  )
}

export function Field({
  label,
  htmlFor,
  errorId,
  errors,
  hint,
  children,
}: {
  label: string
  htmlFor: string
  errorId: string
  errors?: string[]
  hint?: string
  children: ReactNode
}) {
  return (
    <div>
      <label htmlFor={htmlFor} className="block text-sm font-medium text-slate-800">
        {label}
        {hint ? <span className="ml-1 font-normal text-slate-500">{hint}</span> : null}
      </label>
      <div className="mt-1.5">{children}</div>
      <FieldErrors id={errorId} errors={errors} />
    </div>
  )
}

export function FormMessage({ tone, children, id }: { tone: 'success' | 'error'; children: ReactNode; id?: string }) {
  return (
    <div
      id={id}
      role={tone === 'error' ? 'alert' : 'status'}
      className={`rounded-xl border p-4 text-sm ${
        tone === 'success' ? 'border-emerald-200 bg-emerald-50 text-emerald-900' : 'border-red-200 bg-red-50 text-red-800'
      }`}
    >
      {children}
    </div>
  )
}
