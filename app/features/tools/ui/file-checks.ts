// The file picker's own checks (spec §5), run before anything is uploaded. The server checks the real
// bytes again; these only spare the user a pointless upload.
import { MEGABYTE, type ToolDefinition } from '~/features/tools/catalog'

export const INVALID_FILE_TYPE = 'Invalid file type'

export function fileTooLargeMessage(maxMegabytes: number): string {
  return `File too large (max ${maxMegabytes}MB)`
}

/** The alert to show for this file, or null when it may be uploaded. */
export function checkFile(tool: ToolDefinition, file: { type: string; size: number }): string | null {
  if (!tool.acceptedTypes.includes(file.type.toLowerCase())) return INVALID_FILE_TYPE
  if (file.size > tool.maxMegabytes * MEGABYTE) return fileTooLargeMessage(tool.maxMegabytes)
  return null
}

/** '2.41 MB': the file summary's size. */
export function formatMegabytes(bytes: number): string {
  const mb = bytes / MEGABYTE
  return `${mb < 0.01 && bytes > 0 ? '<0.01' : mb.toFixed(2)} MB`
}
