// The two-column frame of a tool page: controls on the left, preview and result on the right;
// one column on small screens.
import type { ReactNode } from 'react'
import { useHydrated } from '~/ui/use-hydrated'

export function ToolLayout({ hero, controls, preview }: { hero: ReactNode; controls: ReactNode; preview: ReactNode }) {
  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
      {hero}
      <div className="mt-8 grid gap-6 lg:grid-cols-[minmax(0,5fr)_minmax(0,7fr)]">
        <section aria-label="Upload and settings" className="min-w-0 space-y-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
          {controls}
        </section>
        <section aria-label="Preview and result" className="min-w-0 space-y-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
          {preview}
        </section>
      </div>
    </div>
  )
}

export function ProcessButton({ disabled, busy, label, busyLabel }: { disabled: boolean; busy: boolean; label: string; busyLabel: string }) {
  // Without JavaScript the page cannot know a file was chosen: the input's `required` guards instead.
  const hydrated = useHydrated()
  return (
    <button
      type="submit"
      disabled={hydrated && disabled}
      aria-busy={busy}
      className="inline-flex min-h-11 w-full items-center justify-center rounded-lg bg-indigo-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-700 disabled:cursor-not-allowed disabled:bg-slate-300 disabled:text-slate-600"
      data-testid="process-button"
    >
      {busy ? busyLabel : label}
    </button>
  )
}

export function CreditsLine({ balance }: { balance: number | null | undefined }) {
  if (balance === null || balance === undefined) return null
  return (
    <p className="text-xs font-medium text-slate-600" data-testid="credits-remaining">
      Credits remaining: <span className="tabular-nums">{balance.toLocaleString()}</span>
    </p>
  )
}

export function EmptyPreview({ children }: { children: ReactNode }) {
  return (
    <div className="flex aspect-[4/3] items-center justify-center rounded-xl border border-dashed border-slate-300 bg-slate-50 p-6 text-center text-sm text-slate-500">
      {children}
    </div>
  )
}
