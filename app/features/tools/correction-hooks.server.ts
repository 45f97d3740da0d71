// What the tools ask of the corrections (features/corrections): what a run keeps for a later correction,
// and the face boxes the jobs API shows (the job platform stores what was kept: jobs/runners.server.ts). The corrections stand above the
// tools (a correction re-renders a result with the tools' own code), so the tools name none of their
// modules: features/wiring.server.ts hands these in (decision 170), as it registers the job events'
// subscribers. A process that runs the remover or the blurrer without the wiring fails on that run,
// never silently without what a correction needs.
import type { MatteMaterial } from './background-remover.server'
import type { RgbaImage } from './image'
import type { KeptForCorrection } from '../jobs/runner'
import { singleton } from '~/utils/singleton.server'

export interface CorrectionHooks {
  /**
   * What the remover's run keeps: the upload, the background image, the run's options (the runner's
   * BackgroundRemoverOptions; not named here, as the runner imports this module), the mattes, the colours.
   */
  keepCutout(input: { upload: Buffer; backgroundImage: Buffer | null; options: object; image: RgbaImage } & MatteMaterial): Promise<KeptForCorrection>
  /** What the blurrer's run keeps: the upload, the radius and format, the boxes found (in the result's pixels). */
  keepFaces(input: {
    upload: Buffer
    image: RgbaImage
    blur: number
    format: string | null
    faces: Array<{ x: number; y: number; width: number; height: number; score: number }>
  }): KeptForCorrection
  /** The face blurrer's detected boxes for the job's JSON; null when the job kept none. */
  detectedFaces(jobId: string, accountId: string): Promise<readonly object[] | null>
}

// On globalThis: server.ts and the Vite-built bundle each hold a copy of this module (as the job events do).
const handed = () => singleton<{ hooks: CorrectionHooks | null }>('correction-hooks', () => ({ hooks: null }))

/** Called once by features/wiring.server.ts. */
export function handCorrectionHooks(hooks: CorrectionHooks): void {
  handed().hooks = hooks
}

export function correctionHooks(): CorrectionHooks {
  const { hooks } = handed()
  if (!hooks) throw new Error('Correction hooks are not handed in: import ~/features/wiring.server in this process before tools run')
  return hooks
}
