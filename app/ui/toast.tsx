// A tiny toast store and its live region. Client-safe: toast() may be called from any event handler.
import { useEffect, useSyncExternalStore } from 'react'

export type ToastVariant = 'default' | 'success' | 'destructive'

export interface ToastInput {
  title: string
  description?: string
  variant?: ToastVariant
  durationMs?: number
}

interface ToastItem extends Required<Omit<ToastInput, 'description'>> {
  id: number
  description?: string
}

export const DEFAULT_TOAST_MS = 4000
const MAX_VISIBLE = 4

let items: ToastItem[] = []
let nextId = 1
const listeners = new Set<() => void>()

function emit() {
  for (const listener of listeners) listener()
}

function subscribe(listener: () => void) {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function toast(t: ToastInput): void {
  const item: ToastItem = {
    id: nextId++,
    title: t.title,
    description: t.description,
    variant: t.variant ?? 'default',
    durationMs: t.durationMs ?? DEFAULT_TOAST_MS,
  }
  items = [...items, item].slice(-MAX_VISIBLE)
  emit()
}

export function dismissToast(id: number): void {
  items = items.filter((i) => i.id !== id)
  emit()
}

const EMPTY: ToastItem[] = []

const variantClass: Record<ToastVariant, string> = {
  default: 'border-slate-200 bg-white text-slate-900',
  success: 'border-emerald-200 bg-emerald-50 text-emerald-900',
  destructive: 'border-red-200 bg-red-50 text-red-900',
}

function ToastCard({ item }: { item: ToastItem }) {
  useEffect(() => {
    const timer = window.setTimeout(() => dismissToast(item.id), item.durationMs)
    return () => window.clearTimeout(timer)
  }, [item.id, item.durationMs])
  return (
    <li
      className={`pointer-events-auto flex items-start gap-3 rounded-xl border p-4 shadow-lg ${variantClass[item.variant]}`}
      data-variant={item.variant}
    >
      <div className="min-w-0 flex-1">
        <p className="text-sm font-semibold">{item.title}</p>
        {item.description ? <p className="mt-1 text-sm opacity-90">{item.description}</p> : null}
      </div>
      <button
        type="button"
        onClick={() => dismissToast(item.id)}
        className="rounded-md px-1 text-lg leading-none opacity-70 hover:opacity-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        aria-label="Dismiss notification"
      >
        ×
      </button>
    </li>
  )
}

/** Mounted once by the layout. */
export function Toaster() {
  const current = useSyncExternalStore(subscribe, () => items, () => EMPTY)
  return (
    <div
      aria-live="polite"
      role="status"
      className="pointer-events-none fixed inset-x-0 bottom-0 z-[60] flex justify-center p-2 sm:justify-end sm:p-4"
      data-toaster=""
    >
      <ol className="flex w-full max-w-sm flex-col gap-2">
        {current.map((item) => (
          <ToastCard key={item.id} item={item} />
        ))}
      </ol>
    </div>
  )
}
