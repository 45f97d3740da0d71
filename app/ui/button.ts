// Class names for buttons and button-looking links, so both read the same everywhere.
export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'inverse' | 'danger'

const base =
  'inline-flex items-center justify-center gap-2 rounded-full px-5 py-2.5 text-sm font-semibold transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-60'

const variants: Record<ButtonVariant, string> = {
  primary: 'bg-indigo-600 text-white hover:bg-indigo-700',
  secondary: 'border border-slate-300 bg-white text-slate-900 hover:bg-slate-50',
  ghost: 'text-slate-700 hover:bg-slate-100',
  inverse: 'bg-white text-slate-900 hover:bg-indigo-50 focus-visible:outline-white',
  /** An action that cannot be undone (deleting an account). */
  danger: 'bg-red-700 text-white hover:bg-red-800 focus-visible:outline-red-700',
}

export function buttonClass(variant: ButtonVariant = 'primary', extra = ''): string {
  return `${base} ${variants[variant]} ${extra}`.trim()
}

export const inputClass =
  'block w-full rounded-xl border border-slate-300 bg-white px-3.5 py-2.5 text-base text-slate-900 shadow-sm placeholder:text-slate-400 focus:border-indigo-500 focus:outline-2 focus:outline-offset-0 focus:outline-indigo-500 aria-[invalid=true]:border-red-500 sm:text-sm'
