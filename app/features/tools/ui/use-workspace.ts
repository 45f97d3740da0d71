// What the workspace adds around useToolRun: the file's checks before upload (real type from its
// bytes, size), the chosen image's size (for the stage's shape), scrolling the stage into view when a
// run starts, and moving focus to the outcome and announcing it when the run ends.
import { useCallback, useEffect, useRef, useState } from 'react'
import type { ProgressStep, ToolDefinition } from '~/catalog/tools'
import { browserCanShow, inspectFile } from './file-checks'
import type { RunStatus } from './use-tool-run'

/** The part of useToolRun's answer the workspace reads. */
export interface RunLike {
  file: File | null
  fileUrl: string | null
  status: RunStatus
  progress: ProgressStep | null
  error: string | null
  remaining: number | null
  selectFile: (file: File | null) => string | null
}

export interface ImageSize {
  width: number
  height: number
}

export function useWorkspace(tool: ToolDefinition, run: RunLike) {
  const [checking, setChecking] = useState(false)
  const [rejection, setRejection] = useState<string | null>(null)
  const [size, setSize] = useState<ImageSize | null>(null)
  /** A raster file the browser could not decode: shown as a placeholder, never as a broken image. */
  const [unreadable, setUnreadable] = useState(false)
  const stageRef = useRef<HTMLDivElement>(null)
  const outcomeRef = useRef<HTMLElement>(null)
  const inputRef = useRef<HTMLInputElement>(null)
  const pending = useRef(0)
  const { selectFile } = run

  /** Checks a file from the picker, a drop, a paste or a sample, then hands it to the run. */
  const choose = useCallback(
    async (file: File | null) => {
      const ticket = ++pending.current
      setRejection(null)
      setSize(null)
      setUnreadable(false)
      if (!file) {
        selectFile(null)
        return
      }
      setChecking(true)
      const verdict = await inspectFile(tool, file)
      if (ticket !== pending.current) return
      if (!verdict.ok) {
        setChecking(false)
        selectFile(null)
        if (inputRef.current) inputRef.current.value = ''
        setRejection(verdict.message)
        return
      }
      // Measured before it is shown: the stage takes the image's shape, and a damaged file is known.
      let measured: ImageSize | null = null
      let broken = false
      if (browserCanShow(verdict.type)) {
        try {
          const bitmap = await createImageBitmap(verdict.file)
          measured = { width: bitmap.width, height: bitmap.height }
          bitmap.close()
        } catch {
          // An SVG without an intrinsic size cannot be measured this way and keeps the default shape.
          broken = verdict.type !== 'image/svg+xml'
        }
      }
      if (ticket !== pending.current) return
      setChecking(false)
      setSize(measured)
      setUnreadable(broken)
      selectFile(verdict.file)
    },
    [tool, selectFile],
  )

  // A run that starts brings the stage (preview, progress, then result and download) into view.
  const previous = useRef<RunStatus>(run.status)
  useEffect(() => {
    const before = previous.current
    previous.current = run.status
    if (run.status === 'processing' && before !== 'processing') {
      stageRef.current?.scrollIntoView({ block: 'start', behavior: prefersReducedMotion() ? 'auto' : 'smooth' })
    }
    // A run that ends (or is refused before sending, like a visitor's SVG conversion) moves focus.
    if (before !== run.status && (run.status === 'complete' || run.status === 'error')) {
      // The effect runs after the outcome is in the DOM: focus its panel, which the screen reader reads.
      const outcome = outcomeRef.current
      if (outcome) {
        outcome.focus({ preventScroll: true })
        // Only as far as needed: an outcome already on screen stays where it is.
        outcome.scrollIntoView({ block: 'nearest', behavior: prefersReducedMotion() ? 'auto' : 'smooth' })
      }
    }
  }, [run.status])

  return { checking, rejection, size, unreadable, choose, stageRef, outcomeRef, inputRef }
}

function prefersReducedMotion(): boolean {
  return typeof window !== 'undefined' && window.matchMedia('(prefers-reduced-motion: reduce)').matches
}
