// What the workspace adds around useToolRun: the file's checks before upload (real type from its
// bytes, size), the chosen image's size (for the stage's shape), scrolling the stage into view when a
// run starts, and moving focus to the outcome and announcing it when the run ends.
import { useLoaderData } from '@remix-run/react'
import { useCallback, useEffect, useRef, useState } from 'react'
import type { ProgressStep, ToolDefinition } from '~/catalog/tools'
import { checkFit, estimateMs, rateVariant, seedFactor, tooSlowMessage, type RunTiming } from '~/features/jobs/run-time'
import { browserCanShow, inspectFile } from './file-checks'
import { downscaleFile } from './downscale'
import type { PageTiming, RunClock } from './page-result'
import type { RunStatus } from './use-tool-run'

/** The part of useToolRun's answer the workspace reads. */
export interface RunLike {
  file: File | null
  fileUrl: string | null
  status: RunStatus
  progress: ProgressStep | null
  error: string | null
  remaining: number | null
  /** The job the browser's run made, once known (the report form names it). */
  jobId?: string | null
  selectFile: (file: File | null) => string | null
}

export interface ImageSize {
  width: number
  height: number
}

/** An image refused before upload because it would not finish in time, and the size that would. */
export interface DownscaleOffer {
  file: File
  width: number
  height: number
}

/** The page's timing (loader data), or null on a page without it. */
function usePageTiming(): { timing: PageTiming | null; jobClock: RunClock | null } {
  const data = useLoaderData() as { timing?: PageTiming; jobClock?: RunClock | null } | null
  return { timing: data?.timing ?? null, jobClock: data?.jobClock ?? null }
}

export function useWorkspace(tool: ToolDefinition, run: RunLike) {
  const { timing: pageTiming, jobClock } = usePageTiming()
  const [checking, setChecking] = useState(false)
  const [offer, setOffer] = useState<DownscaleOffer | null>(null)
  const [downscaling, setDownscaling] = useState(false)
  const [clock, setClock] = useState<RunClock | null>(jobClock)
  const [rejection, setRejection] = useState<string | null>(null)
  const [size, setSize] = useState<ImageSize | null>(null)
  /** A raster file the browser could not decode: shown as a placeholder, never as a broken image. */
  const [unreadable, setUnreadable] = useState(false)
  const stageRef = useRef<HTMLDivElement>(null)
  const outcomeRef = useRef<HTMLElement>(null)
  const inputRef = useRef<HTMLInputElement>(null)
  const pending = useRef(0)
  const { selectFile } = run

  /** The run timing for the variant the form asks for now (the remover's model select). */
  const timingNow = useCallback((): RunTiming | null => {
    if (!pageTiming) return null
    const model = inputRef.current?.form?.elements.namedItem('model')
    const variant = rateVariant(tool.slug, { model: model && 'value' in model ? model.value : undefined })
    return { tool: tool.slug, factor: pageTiming.factors[variant] ?? seedFactor(tool.slug, variant), limitMs: pageTiming.limitMs }
  }, [pageTiming, tool.slug])

  /** Checks a file from the picker, a drop, a paste or a sample, then hands it to the run. */
  const choose = useCallback(
    async (file: File | null) => {
      const ticket = ++pending.current
      setRejection(null)
      setOffer(null)
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
      // Too slow to finish in the time limit here: refused before anything is uploaded, with the way on.
      const timing = timingNow()
      const fit = measured && timing ? checkFit(timing, measured.width, measured.height) : null
      if (fit && !fit.fits && measured && timing) {
        selectFile(null)
        if (inputRef.current) inputRef.current.value = ''
        setRejection(tooSlowMessage(fit, measured.width, measured.height, timing.limitMs).replace(' Nothing was charged.', ''))
        if (fit.largest) setOffer({ file: verdict.file, ...fit.largest })
        return
      }
      setSize(measured)
      setUnreadable(broken)
      selectFile(verdict.file)
    },
    [tool, selectFile, timingNow],
  )

  /** The offer taken: the image downscaled in the browser to the size that fits, then chosen like any file. */
  const downscale = useCallback(async () => {
    if (!offer) return
    setDownscaling(true)
    try {
      const smaller = await downscaleFile(offer.file, offer.width, offer.height)
      await choose(smaller)
    } catch {
      setRejection('The browser could not downscale this image. Resize it in an image editor and choose it again.')
      setOffer(null)
    } finally {
      setDownscaling(false)
    }
  }, [offer, choose])

  // A run that starts brings the stage (preview, progress, then result and download) into view.
  const previous = useRef<RunStatus>(run.status)
  useEffect(() => {
    const before = previous.current
    previous.current = run.status
    if (run.status === 'processing' && before !== 'processing') {
      // The run's clock: from now, with the estimate for the chosen image (a page opened on a running job keeps the loader's).
      const timing = timingNow()
      setClock({ startedAt: Date.now(), estimateMs: timing && size ? estimateMs(timing, size.width, size.height) : null })
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
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [run.status])

  return {
    checking, rejection, size, unreadable, choose, stageRef, outcomeRef, inputRef,
    offer, downscale, downscaling, clock, renderedAt: pageTiming?.renderedAt ?? null,
  }
}

function prefersReducedMotion(): boolean {
  return typeof window !== 'undefined' && window.matchMedia('(prefers-reduced-motion: reduce)').matches
}
