// The top of every tool page: its name and one line about it. Kept short so the workspace (the
// image) starts high on the screen; what it accepts is said once, in the drop target, and the cost
// beside the button.
import type { ToolDefinition } from '~/catalog/tools'

export function ToolHero({ tool }: { tool: ToolDefinition }) {
  return (
    <header className="flex flex-col gap-1 sm:flex-row sm:items-baseline sm:gap-4">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{tool.name}</h1>
      <p className="text-sm text-slate-600 sm:text-base">{tool.description}</p>
    </header>
  )
}
