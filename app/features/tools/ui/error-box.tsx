// The red box every tool shows its error in; role=alert so screen readers announce it at once.
import type { ReactNode } from 'react'

export function ErrorBox({ message, children }: { message: string | null | undefined; children?: ReactNode }) {
  if (!message) return null
  return (
    <div role="alert" className="rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-800" data-testid="error-box">
      <p className="font-semibold">{message}</p>
      {children}
    </div>
  )
}
