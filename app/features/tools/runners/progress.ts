// Turns a tool module's phases into the run's progress: one overall fraction (0..1) that never goes
// back, and the stage message from the tool's spec steps (catalog.ts), so the words a person sees
// are the spec's while the numbers come from the work itself.
import { TOOLS, type ToolSlug } from '../../../catalog/tools'
import type { ReportProgress } from '../../jobs/runner'
import { stageTimeline } from '~/features/observability/tracing.server'

/** A phase's share of the run (`from`..`to`, fractions of the whole) and the spec step it shows (index in the tool's steps). */
export interface PhaseSpan {
  from: number
  to: number
  step: number
}

export interface RunProgress<Phase extends string> {
  /** `phase` is `fraction` (0..1) of the way through. */
  phase: (phase: Phase, fraction: number) => void
  /** The work is done: 1, with the tool's last step ("Cutout ready", "Portrait ready"…). */
  done: () => void
}

export function runProgress<Phase extends string>(tool: ToolSlug, report: ReportProgress, plan: Record<Phase, PhaseSpan>): RunProgress<Phase> {
  const steps = TOOLS[tool].steps
  // The phases are the run's stages in its trace too (only kept when the run is traced).
  const stages = stageTimeline()
  let reached = 0
  const send = (fraction: number, step: number) => {
    // Phases can report out of order (a module's last face and its encoding start together): keep the
    // fraction rising so a progress bar never moves backwards.
    reached = Math.max(reached, Math.min(1, Math.max(0, fraction)))
    report(reached, steps[Math.min(step, steps.length - 1)].message)
  }
  return {
    phase(phase, fraction) {
      stages.report(phase)
      const span = plan[phase]
      const within = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0
      send(span.from + (span.to - span.from) * within, span.step)
    },
    done: () => {
      stages.done()
      send(1, steps.length - 1)
    },
  }
}
