// The upload card: a real file input (so the form works without JavaScript) inside a drop zone that
// also takes drag-and-drop, followed by the chosen file's summary.
import { useId, useRef, useState, type DragEvent, type ReactNode } from 'react'
import type { ToolDefinition } from '~/features/tools/catalog'
import { formatMegabytes } from './file-checks'

export interface UploadCardProps {
  tool: ToolDefinition
  file: File | null
  /** Returns the refusal text when the file was not accepted. */
  onFile: (file: File | null) => string | null
  disabled?: boolean
  /** Shown next to the summary: the status badge, credits. */
  aside?: ReactNode
}

export function UploadCard({ tool, file, onFile, disabled, aside }: UploadCardProps) {
  const inputId = useId()
  const hintId = useId()
  const input = useRef<HTMLInputElement>(null)
  const [dragging, setDragging] = useState(false)
  const noun = tool.fileField === 'svg' ? 'an SVG file' : 'an image'

  function take(files: FileList | null) {
    const next = files?.[0] ?? null
    const refused = onFile(next)
    if (refused && input.current) input.current.value = ''
  }

  function drop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault()
    setDragging(false)
    if (disabled) return
    const files = event.dataTransfer.files
    if (!files.length) return
    // Keep the input in step with the dropped file, so a plain form post would send it too.
    if (input.current) {
      try {
        input.current.files = files
      } catch {
        // Older browsers refuse to assign FileList; the run uses the dropped file anyway.
      }
    }
    take(files)
  }

  return (
    <div className="space-y-3">
      <div
        onDragOver={(event) => {
          event.preventDefault()
          if (!disabled) setDragging(true)
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
        className={`rounded-xl border-2 border-dashed p-5 text-center transition-colors ${
          dragging ? 'border-indigo-500 bg-indigo-50' : 'border-slate-300 bg-white'
        }`}
        data-testid="drop-zone"
      >
        <label htmlFor={inputId} className="block cursor-pointer text-sm font-semibold text-slate-800">
          Drop {noun} here or click to browse
        </label>
        <p id={hintId} className="mt-1 text-xs text-slate-500">
          {tool.acceptedLabel} up to {tool.maxMegabytes}MB
        </p>
        <input
          ref={input}
          id={inputId}
          type="file"
          name={tool.fileField}
          accept={tool.accept}
          required
          disabled={disabled}
          aria-describedby={hintId}
          onChange={(event) => take(event.currentTarget.files)}
          className="mx-auto mt-3 block w-full max-w-xs text-sm text-slate-700 file:mr-3 file:min-h-10 file:cursor-pointer file:rounded-lg file:border-0 file:bg-indigo-600 file:px-4 file:py-2 file:text-sm file:font-semibold file:text-white hover:file:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          data-testid="file-input"
        />
      </div>
      <div className="flex flex-wrap items-center justify-between gap-2 rounded-xl bg-slate-50 px-4 py-3 text-sm">
        {file ? (
          <dl className="min-w-0 flex-1 space-y-0.5" data-testid="file-summary" aria-label="Chosen file">
            <div className="flex gap-1">
              <dt className="sr-only">Name</dt>
              <dd className="truncate font-medium text-slate-900" title={file.name}>
                {file.name}
              </dd>
            </div>
            <div className="flex gap-2 text-xs text-slate-600">
              <dt className="sr-only">Size</dt>
              <dd>{formatMegabytes(file.size)}</dd>
              <dt className="sr-only">Type</dt>
              <dd>{file.type || 'unknown type'}</dd>
            </div>
          </dl>
        ) : (
          <p className="flex-1 text-slate-500">No file chosen yet.</p>
        )}
        {aside}
      </div>
    </div>
  )
}
