// A file chosen outside a tool's page (the home page's drop zone) handed to the tool it starts, across a
// client-side navigation: the tool page takes it once, checks it like any chosen file and runs it.
// Without JavaScript the home page's form posts the file to the tool's own page action instead.
// Client-only state, held in this module between two routes of one page load.
import type { ToolSlug } from '~/catalog/tools'

interface Handoff {
  tool: ToolSlug
  file: File
}

let pending: Handoff | null = null

export function handOff(tool: ToolSlug, file: File): void {
  pending = { tool, file }
}

/** The file handed to `tool`, once: a second call (or another tool) gets null. */
export function takeHandoff(tool: ToolSlug): File | null {
  if (!pending || pending.tool !== tool) return null
  const { file } = pending
  pending = null
  return file
}
