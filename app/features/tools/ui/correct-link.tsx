// The way from a result to its correction page: on the workspace's result, on each history entry and
// on each batch item. Its words say what the page does for that tool; a tool without words has no
// correction page. With the tools' screens, below the corrections (decision 170).
import { Link } from '@remix-run/react'
import type { ToolSlug } from '~/catalog/tools'
import { editPath, isEditable, type EditableTool } from '~/catalog/corrections'

export const CORRECT_WORDS: Record<EditableTool, string> = {
  'background-remover': 'Correct by hand',
  'face-blurrer': 'Review faces',
}

const linkClass =
  'inline-flex min-h-11 items-center justify-center rounded-lg border border-indigo-600 bg-white px-4 py-2 font-semibold text-indigo-700 hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'
const inlineClass = 'font-semibold text-indigo-700 underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600'

/** A button-looking link (the result card), or an underlined one in a list (`inline`). */
export function CorrectLink({ jobId, tool, name, inline = false }: { jobId: string | null | undefined; tool: ToolSlug; name?: string; inline?: boolean }) {
  if (!isEditable(tool) || !jobId) return null
  const words = CORRECT_WORDS[tool]
  return (
    <Link to={editPath(jobId)} className={inline ? inlineClass : linkClass} data-testid="correct-link">
      {words}
      {name ? <span className="sr-only"> ({name})</span> : null}
    </Link>
  )
}
