// A captioned block of code a reader copies into a terminal or an editor. With JavaScript it gets a
// Copy button (the clipboard needs a script); without, the text is plain and selectable as ever.
import { useState } from 'react'
import { useHydrated } from './use-hydrated'

export function CodeBlock({ children, label }: { children: string; label: string }) {
  const hydrated = useHydrated()
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(children)
      setCopied('yes')
    } catch {
      // A page without clipboard permission (or an insecure origin): say so, the text stays selectable.
      setCopied('failed')
    }
  }
  return (
    <figure className="m-0 mt-4 overflow-hidden rounded-xl bg-slate-900">
      <figcaption className="flex items-center justify-between gap-3 border-b border-white/10 px-4 py-2 text-xs text-slate-400">
        <span>{label}</span>
        {hydrated ? (
          <span className="flex items-center gap-2">
            <span role="status" className="text-emerald-300">
              {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Select the text to copy it' : ''}
            </span>
            <button
              type="button"
              onClick={copy}
              aria-label={`Copy: ${label}`}
              className="min-h-9 rounded-md border border-white/20 px-3 py-1 font-semibold text-white hover:bg-white/10 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
            >
              Copy
            </button>
          </span>
        ) : null}
      </figcaption>
      {/* Focusable: a block that scrolls sideways must be reachable by keyboard. */}
      <pre tabIndex={0} aria-label={label} className="overflow-x-auto p-4 text-sm leading-relaxed text-emerald-200">
        <code>{children}</code>
      </pre>
    </figure>
  )
}
