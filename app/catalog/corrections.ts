// Which tools' results can be corrected, what a correction of each is, and where its page is: client-safe
// facts the corrections (features/corrections) and the links to them (on the tools' results, in history,
// in batches) share. In the catalog because the tools link to a correction and stand below the corrections
// (decision 170); corrections/types.ts passes them on to the corrections' own modules.

export type EditKind = 'cutout' | 'faces'

/** The tools whose results keep what a correction needs, and what a correction of each is: one list for server and screens. */
export const EDITABLE_TOOLS = { 'background-remover': 'cutout', 'face-blurrer': 'faces' } as const satisfies Record<string, EditKind>
export type EditableTool = keyof typeof EDITABLE_TOOLS

export function isEditable(tool: string): tool is EditableTool {
  return Object.hasOwn(EDITABLE_TOOLS, tool)
}

/** Where the web page for correcting a result lives. */
export const editPath = (jobId: string) => `/edit/${jobId}`
