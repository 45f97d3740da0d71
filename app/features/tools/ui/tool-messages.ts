// Each tool's error and success wording (spec §8). Client-safe.
import type { ToolSlug } from '~/catalog/tools'

export interface ToolMessages {
  /** Shown when a failed response carries no error string. */
  defaultError: string
  /** Shown when the request itself failed (network, unreadable answer). */
  fallbackError: string
  failureToast: string
  success?: { title: string; description: string }
}

export const ERROR_TOAST_MS = 4500
export const SUCCESS_TOAST_MS = 4000

export const TOOL_MESSAGES: Record<ToolSlug, ToolMessages> = {
  'background-remover': {
    defaultError: 'Unable to process image.',
    fallbackError: 'Background removal failed.',
    failureToast: 'Processing failed',
    success: { title: 'Background removed', description: 'Your cutout is ready to download.' },
  },
  'face-restorer': {
    defaultError: 'Unable to restore portrait.',
    fallbackError: 'Face restoration failed.',
    failureToast: 'Processing failed',
    success: { title: 'Portrait restored', description: 'Your restored portrait is ready to download.' },
  },
  'face-blurrer': {
    defaultError: 'Unable to blur faces.',
    fallbackError: 'Face blur failed.',
    failureToast: 'Processing failed',
    success: { title: 'Faces blurred', description: 'Your anonymized image is ready to download.' },
  },
  'svg-converter': {
    defaultError: 'Unable to convert SVG.',
    fallbackError: 'Conversion failed.',
    failureToast: 'Conversion failed',
    success: { title: 'Conversion complete', description: 'Your optimized asset is ready to download.' },
  },
  'image-enhancer': {
    defaultError: 'Unable to enhance image.',
    fallbackError: 'Image enhancement failed.',
    failureToast: 'Processing failed',
    success: { title: 'Image enhanced', description: 'Enhancement completed successfully.' },
  },
}

/**
 * A file refused for what it is (too large, not an image the tool takes), said on a page posted
 * without JavaScript: the file, not the run, is the problem, so nothing suggests trying again.
 */
export function unusableFileMessage(reason: string): string {
  const text = reason.trim().replace(/\.$/, '')
  return `This file can't be used: ${text.charAt(0).toLowerCase()}${text.slice(1)}.`
}

/** The statuses of a refused file (too large, wrong type): the page shows them as a refused file, not a failed run. */
export const UNUSABLE_FILE_STATUSES: readonly number[] = [413, 415]

export const MISSING_RESTORED_URL = 'Server response missing restored image URL.'
export const SVG_SIGN_IN_MESSAGE = 'Sign in with a Facet Studio account to convert SVG files.'
export const SVG_SIGN_IN_TOAST = 'Authentication required'
export const COLOURED_DOWNLOAD_FAILED = { title: 'Download failed', description: 'Could not generate colored background version.' }

/** The message of a failed tool response: its `error`, else `detail`, else the tool's default. */
export function failureMessage(body: unknown, defaultError: string): string {
  if (body && typeof body === 'object') {
    const { error, detail } = body as { error?: unknown; detail?: unknown }
    if (typeof error === 'string' && error.trim()) return error
    if (typeof detail === 'string' && detail.trim()) return detail
  }
  return defaultError
}

/** A numeric `remaining` from an error body or the X-Credits-Remaining header, else null. */
export function remainingFrom(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value.trim())
  return null
}
