// Shown once the email is verified and the welcome bonus is granted. With JavaScript it is a modal
// dialog (focus kept inside, Escape closes); without, the same markup is a panel in the page, under the card.
import { Link } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { buttonClass } from '~/ui/button'

export function WelcomeDialog({ credits }: { credits: number }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog || typeof dialog.showModal !== 'function') return
    // Rendered open for the no-JavaScript case; reopen as a modal so focus and Escape behave.
    if (dialog.open && !dialog.matches(':modal')) dialog.close()
    if (!dialog.open) dialog.showModal()
  }, [])
  const items = [`${credits} Free Credits`, 'Access to all 5 AI tools', 'No credit card required']
  return (
    <dialog
      ref={ref}
      open
      aria-labelledby="welcome-title"
      data-testid="welcome-dialog"
      // In the page's flow, under the verified card, until the script makes it a modal (issue 35: without
      // JavaScript an open dialog sits over the card); only a modal one is fixed over the page.
      className="relative z-[70] mx-auto mt-6 w-full max-w-md rounded-2xl border border-slate-200 bg-white p-6 text-left shadow-2xl backdrop:bg-slate-900/50 sm:p-8 [&:modal]:fixed [&:modal]:inset-0 [&:modal]:m-auto [&:modal]:w-[calc(100%-2rem)]"
    >
      <h2 id="welcome-title" className="text-xl font-bold text-slate-900">
        Welcome to Facet Studio
      </h2>
      <p className="mt-1 text-sm text-slate-600">Your account is ready. Here is what you get:</p>
      <ul className="mt-5 space-y-3">
        {items.map((item) => (
          <li key={item} className="flex items-center gap-3 text-sm font-medium text-slate-800">
            <span className="flex h-6 w-6 shrink-0 items-center justify-center rounded-full bg-emerald-100 text-emerald-700" aria-hidden="true">
              <svg viewBox="0 0 20 20" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round">
                <path d="m5 10 3.5 3.5L15 7" />
              </svg>
            </span>
            {item}
          </li>
        ))}
      </ul>
      <Link to="/dashboard" className={buttonClass('primary', 'mt-6 w-full')} autoFocus>
        Start creating
      </Link>
    </dialog>
  )
}
