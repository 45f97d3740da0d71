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

const ACTION_CLASS =
  'inline-flex min-h-12 flex-1 items-center justify-center rounded-xl px-4 py-2 text-base font-semibold shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2'

/**
 * After a result, below 1024 px (where the action bar is pinned to the bottom of the screen), the bar
 * offers the result's download and a new image instead of the run button, whose second tap would run
 * and charge again (issue 35). The download is the result's own link in its download box, clicked for
 * the user, so the file, its name and any colour chosen are the same; without JavaScript it is the page
 * result's link. A new image opens the file chooser (choosing one resets the result); without
 * JavaScript it is the tool's page, empty.
 */
export function ResultActions({
  hydrated,
  pageDownload,
  toolPath,
  outcomeRef,
  inputRef,
}: {
  hydrated: boolean
  /** The no-JavaScript result's download (a page post's result). */
  pageDownload: { href: string; filename: string } | null
  toolPath: string
  outcomeRef: React.RefObject<HTMLElement | null>
  inputRef: React.RefObject<HTMLInputElement | null>
}) {
  const download = `${ACTION_CLASS} bg-emerald-700 text-white hover:bg-emerald-800 focus-visible:outline-emerald-800`
  const fresh = `${ACTION_CLASS} border border-slate-300 bg-white text-slate-900 hover:bg-slate-50 focus-visible:outline-indigo-600`
  return (
    <div className="result-actions flex gap-2 lg:hidden" data-testid="result-actions">
      {hydrated ? (
        <button
          type="button"
          className={download}
          onClick={() => outcomeRef.current?.querySelector<HTMLAnchorElement>('[data-testid="download-link"]')?.click()}
        >
          Download
        </button>
      ) : pageDownload ? (
        <a href={pageDownload.href} download={pageDownload.filename} className={download}>
          Download
        </a>
      ) : null}
      {hydrated ? (
        <button type="button" className={fresh} onClick={() => inputRef.current?.click()}>
          New image
        </button>
      ) : (
        <a href={toolPath} className={fresh}>
          New image
        </a>
      )}
    </div>
  )
}
