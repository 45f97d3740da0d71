// The SVG converter's choices with the spec's labels (§2), and what is sent for them (§5).
import { DEFAULT_BACKGROUND, type SvgFormat } from '~/catalog/tools'

export const FORMAT_OPTIONS: ReadonlyArray<{ value: SvgFormat; label: string }> = [
  { value: 'png', label: 'PNG (raster with transparency)' },
  { value: 'jpeg', label: 'JPEG (photo-friendly)' },
  { value: 'webp', label: 'WebP (modern codec)' },
]

export const SCALE_OPTIONS: ReadonlyArray<{ value: string; label: string }> = [
  { value: '0.75', label: '0.75× Draft' },
  { value: '1', label: '1× Original' },
  { value: '2', label: '2× Retina' },
  { value: '3', label: '3× Ultra' },
]

export const DEFAULT_FORMAT: SvgFormat = 'png'
export const DEFAULT_SCALE = '1'

/** The background field: sent only when transparency is off; empty text falls back to #ffffff. */
export function svgBackgroundField(transparent: boolean, text: string): string | null {
  if (transparent) return null
  const value = text.trim()
  return value.length > 0 ? value : DEFAULT_BACKGROUND
}

/** The download name: the server's, else converted.{format}. */
export function convertedFilename(serverName: string | null | undefined, format: SvgFormat): string {
  return serverName && serverName.trim() ? serverName.trim() : `converted.${format}`
}

export function formatPreviewLabel(format: SvgFormat): string {
  return `${format.toUpperCase()} preview`
}
