// The background remover's colour choice (spec §2, §5, §9): transparent, one of nine presets, or a
// custom colour that applies only when it is 3- or 6-digit hex with a leading #.
import { BACKGROUND_PRESETS, DEFAULT_BACKGROUND, HEX_COLOUR } from '~/catalog/tools'

export type BackgroundChoice =
  | { mode: 'transparent' }
  | { mode: 'preset'; preset: (typeof BACKGROUND_PRESETS)[number] }
  | { mode: 'custom'; value: string }

export const DEFAULT_CUSTOM_COLOUR = DEFAULT_BACKGROUND

export function isHexColour(value: string): boolean {
  return HEX_COLOUR.test(value.trim())
}

/** The colour to composite behind the cutout, or null for a transparent result. An invalid custom
 * colour is not applied: the preview and download stay transparent until it is valid. */
export function appliedColour(choice: BackgroundChoice): string | null {
  if (choice.mode === 'transparent') return null
  if (choice.mode === 'preset') return choice.preset
  const value = choice.value.trim().toLowerCase()
  return isHexColour(value) ? value : null
}

export { cutoutFilename } from '../../../catalog/tools'

/** What the no-JavaScript form sends as the API's `background` field ('' means transparent). */
export function backgroundField(choice: BackgroundChoice): string {
  return appliedColour(choice) ?? ''
}
