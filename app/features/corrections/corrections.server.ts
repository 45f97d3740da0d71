// Correcting a delivered result without running a model again (decision 157).
import type { CorrectionInput, EditView } from './types'

const EDITABLE_TOOLS = new Set(['background-remover', 'face-blurrer'])

/** The tools whose results keep what a correction needs. */
export function isEditable(tool: string): boolean {
  return EDITABLE_TOOLS.has(tool)
}

/** The result as the editor shows it; null when the job is not the account's, has expired or cannot be corrected (404). */
export async function readEditView(jobId: string, accountId: string): Promise<EditView | null> {
  void jobId
  void accountId
  throw new Error('not implemented yet')
}

/** Re-renders the result from the stored run and the corrections, replaces the job's result, charges nothing. Throws ToolError (4xx). */
export async function applyCorrections(
  jobId: string,
  accountId: string,
  input: CorrectionInput,
  now?: Date,
): Promise<{ bytes: Buffer; contentType: string; filename: string; view: EditView }> {
  void jobId
  void accountId
  void input
  void now
  throw new Error('not implemented yet')
}

/** which: 'photo' | 'matte' | 'mask' | `part-${id}` | `face-${index}`; null when there is no such image (404). */
export async function readEditPreview(
  jobId: string,
  accountId: string,
  which: string,
): Promise<{ bytes: Buffer; contentType: string } | null> {
  void jobId
  void accountId
  void which
  throw new Error('not implemented yet')
}
