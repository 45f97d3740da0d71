// The editors' keyboard, as pure functions: which key does what. Undo and redo are the platform's
// (Ctrl/Cmd+Z, Shift+Ctrl/Cmd+Z, Ctrl+Y) and work anywhere on the page except in a text field, which
// keeps its own; the brush's keys work while its canvas has focus.

export interface KeyLike {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  shiftKey: boolean
  altKey: boolean
}

export type HistoryKey = 'undo' | 'redo'

export function historyKey(event: KeyLike): HistoryKey | null {
  if (!(event.ctrlKey || event.metaKey) || event.altKey) return null
  const key = event.key.toLowerCase()
  if (key === 'z') return event.shiftKey ? 'redo' : 'undo'
  if (key === 'y' && !event.shiftKey) return 'redo'
  return null
}

/** Where a key press lands that already has an undo of its own (typing in a field). */
export function isTextEntry(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).tagName !== 'string') return false
  const element = target as HTMLElement
  if (element.isContentEditable) return true
  if (element.tagName === 'TEXTAREA') return true
  if (element.tagName !== 'INPUT') return false
  const type = (element as HTMLInputElement).type
  return !['checkbox', 'radio', 'range', 'button', 'submit', 'reset', 'file', 'color'].includes(type)
}

/** How far an arrow moves the brush cursor: a fraction of the brush (at least 1 px), ×4 with Shift. */
export function cursorStep(brushSize: number, shift: boolean): number {
  const step = Math.max(1, Math.round(brushSize / 4))
  return shift ? step * 4 : step
}

export type BrushKey =
  | { kind: 'move'; dx: number; dy: number }
  | { kind: 'paint' }
  | { kind: 'size'; delta: 1 | -1 }
  | { kind: 'mode'; mode: 'erase' | 'restore' }

const ARROWS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
}

/** A key pressed on the brush canvas. */
export function brushKey(event: KeyLike): BrushKey | null {
  if (event.ctrlKey || event.metaKey || event.altKey) return null
  const arrow = ARROWS[event.key]
  if (arrow) return { kind: 'move', dx: arrow[0], dy: arrow[1] }
  if (event.key === ' ' || event.key === 'Enter') return { kind: 'paint' }
  if (event.key === '[') return { kind: 'size', delta: -1 }
  if (event.key === ']') return { kind: 'size', delta: 1 }
  const key = event.key.toLowerCase()
  if (key === 'e') return { kind: 'mode', mode: 'erase' }
  if (key === 'r') return { kind: 'mode', mode: 'restore' }
  return null
}
