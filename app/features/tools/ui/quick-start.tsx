// The home page's drop zone (issue 21, the front door): a real file input in a real multipart form that
// posts to the background remover's own page action, so it works without JavaScript (the page then
// follows the run like any no-JS post). With JavaScript a chosen or dropped file is handed to the
// remover's workspace (handoff.ts), which checks it and starts the run there. The other tools are one
// link away.
import { Link, useNavigate } from '@remix-run/react'
import { useState, type DragEvent, type FormEvent } from 'react'
import { TOOL_LIST, TOOLS, type ToolSlug } from '~/catalog/tools'
import { UploadIcon } from '~/ui/upload-icon'
import { useHydrated } from '~/ui/use-hydrated'
import { formatCredits } from '~/utils/credits-word'
import { handOff } from './handoff'

const START_TOOL: ToolSlug = 'background-remover'
const INPUT_ID = 'quick-start-file'

export function QuickStart({ cost }: { cost: number }) {
  const tool = TOOLS[START_TOOL]
  const hydrated = useHydrated()
  const navigate = useNavigate()
  const [dragging, setDragging] = useState(false)

  function start(file: File | null | undefined) {
    if (!file) return
    handOff(tool.slug, file)
    navigate(tool.path)
  }
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const file = (event.currentTarget.elements.namedItem(tool.fileField) as HTMLInputElement | null)?.files?.[0]
    if (!hydrated || !file) return
    event.preventDefault()
    start(file)
  }
  function onDrop(event: DragEvent<HTMLElement>) {
    event.preventDefault()
    setDragging(false)
    start(event.dataTransfer.files?.[0])
  }

  return (
    <div className="rounded-2xl border border-slate-200 bg-white p-3 shadow-sm sm:p-4" data-testid="quick-start">
      <form
        method="post"
        action={tool.path}
        encType="multipart/form-data"
        aria-label={`Start the ${tool.name.toLowerCase()}`}
        onSubmit={onSubmit}
        className="space-y-3"
      >
        <input
          id={INPUT_ID}
          type="file"
          name={tool.fileField}
          accept={tool.accept}
          required
          aria-label={`Choose an image for the ${tool.name.toLowerCase()}`}
          aria-describedby={`${INPUT_ID}-hint`}
          onChange={(event) => {
            if (hydrated) start(event.currentTarget.files?.[0])
          }}
          className="peer sr-only"
          data-testid="quick-start-input"
        />
        <label
          htmlFor={INPUT_ID}
          onDragOver={(event) => {
            event.preventDefault()
            setDragging(true)
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          className={`flex min-h-40 cursor-pointer flex-col items-center justify-center gap-2 rounded-xl border-2 border-dashed px-4 py-6 text-center transition-colors peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-indigo-600 ${
            dragging ? 'border-indigo-500 bg-indigo-50' : 'border-indigo-200 bg-indigo-50/40 hover:border-indigo-400 hover:bg-indigo-50'
          }`}
          data-testid="quick-start-zone"
        >
          <UploadIcon />
          <span className="text-base font-semibold text-slate-900">
            {hydrated ? 'Drop an image here, or click to choose' : 'Click to choose an image'}
          </span>
          <span id={`${INPUT_ID}-hint`} className="text-sm text-slate-600">
            The background is removed: {tool.acceptedLabel} up to {tool.maxMegabytes} MB, {formatCredits(cost)} a run
          </span>
          {hydrated ? null : (
            <span className="hidden rounded-lg bg-emerald-50 px-3 py-2 text-sm font-medium text-emerald-900 [.peer:valid~*_&]:block">
              File chosen. Press “Remove background”.
            </span>
          )}
        </label>
        {/* Without JavaScript the form is sent by this button; with it, choosing the file is enough. */}
        <button
          type="submit"
          className={`min-h-12 w-full items-center justify-center rounded-xl bg-indigo-600 px-4 py-2 text-base font-semibold text-white shadow-sm hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-700 ${hydrated ? 'hidden' : 'inline-flex'}`}
          data-testid="quick-start-submit"
        >
          Remove background
        </button>
      </form>
      <p className="mt-3 text-sm text-slate-600">
        Another tool?{' '}
        {TOOL_LIST.filter((t) => t.slug !== tool.slug).map((t, i, rest) => (
          <span key={t.slug}>
            <Link to={t.path} className="font-medium text-indigo-700 underline-offset-2 hover:underline">
              {t.name}
            </Link>
            {i < rest.length - 1 ? ' · ' : ''}
          </span>
        ))}
      </p>
    </div>
  )
}
