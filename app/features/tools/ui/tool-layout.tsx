// Small parts every tool's workspace uses: the process button and the credits line.
import { useHydrated } from '~/ui/use-hydrated'

export function ProcessButton({
  disabled,
  blocked = false,
  busy,
  label,
  busyLabel,
}: {
  /** No file yet or a run under way: known only once the page runs JavaScript. */
  disabled: boolean
  /** Known by the server too (not enough credits, model missing): disabled even without JavaScript. */
  blocked?: boolean
  busy: boolean
  label: string
  busyLabel: string
}) {
  // Without JavaScript the page cannot know a file was chosen: the input's `required` guards instead.
  const hydrated = useHydrated()
  return (
    <button
      type="submit"
      disabled={blocked || (hydrated && disabled)}
      aria-busy={busy}
      className="inline-flex min-h-12 w-full items-center justify-center rounded-xl bg-indigo-600 px-4 py-2 text-base font-semibold text-white shadow-sm hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-700 disabled:cursor-not-allowed disabled:bg-slate-300 disabled:text-slate-700"
      data-testid="process-button"
    >
      {busy ? busyLabel : label}
    </button>
  )
}

export function CreditsLine({ balance }: { balance: number | null | undefined }) {
  if (balance === null || balance === undefined) return null
  return (
    <span className="font-medium text-slate-700" data-testid="credits-remaining">
      Credits remaining: <span className="tabular-nums">{balance.toLocaleString('en-US')}</span>
    </span>
  )
}
