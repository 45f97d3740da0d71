// The top of every tool page: name, one-line description, what it accepts, what a run costs.
import type { ToolDefinition } from '~/features/tools/catalog'

export function ToolHero({ tool, cost }: { tool: ToolDefinition; cost: number }) {
  return (
    <header className="mx-auto max-w-3xl text-center">
      <p className="text-xs font-semibold uppercase tracking-widest text-indigo-600">AI tool</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">{tool.name}</h1>
      <p className="mt-3 text-base text-slate-600 sm:text-lg">{tool.description}</p>
      <ul className="mt-4 flex flex-wrap justify-center gap-2 text-xs font-medium text-slate-700" aria-label="About this tool">
        <li className="rounded-full bg-slate-100 px-3 py-1">
          Accepts {tool.acceptedLabel} up to {tool.maxMegabytes}MB
        </li>
        <li className="rounded-full bg-slate-100 px-3 py-1" data-testid="tool-cost">
          {cost} {cost === 1 ? 'credit' : 'credits'} per run
        </li>
        {tool.signInRequired ? (
          <li className="rounded-full bg-amber-100 px-3 py-1 text-amber-900">Requires a Facet Studio account</li>
        ) : null}
      </ul>
    </header>
  )
}
