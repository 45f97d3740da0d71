// The batch screen: one form (many files, one tool and its options) that works without
// JavaScript, and the batch's status with progress per file and "Download all".
import { Form } from '@remix-run/react'
import { TOOL_APIS } from '~/features/api-docs/tool-fields'
import { buttonClass, inputClass } from '~/ui/button'
import { Field } from '~/ui/field'
import { MAX_BATCH_FILES } from '../limits'

/** The tools the screen offers: those that take images (the SVG converter takes `svg` files: API only). */
export const SCREEN_TOOLS = TOOL_APIS.filter((api) => api.tool.fileField === 'image')

export interface BatchItemView {
  name: string
  status: string
  progress: number
  result_url: string | null
  error: string | null
}

export interface BatchStatusView {
  id: string
  tool: string
  status: 'running' | 'completed'
  total: number
  done: number
  failed: number
  items: BatchItemView[]
}

export function BatchForm({ error }: { error?: string }) {
  return (
    <Form method="post" encType="multipart/form-data" reloadDocument className="space-y-6" aria-describedby={error ? 'batch-error' : undefined}>
      {error ? (
        <p id="batch-error" role="alert" className="rounded-xl bg-red-50 p-4 text-sm text-red-800">
          {error}
        </p>
      ) : null}
      <Field label="Images" htmlFor="batch-files" errorId="batch-files-error" hint={`(up to ${MAX_BATCH_FILES}, or one zip)`}>
        <input id="batch-files" name="image" type="file" multiple required accept="image/*,.zip,application/zip" className={inputClass} />
      </Field>
      <Field label="Tool" htmlFor="batch-tool" errorId="batch-tool-error">
        <select id="batch-tool" name="tool" className={inputClass} defaultValue={SCREEN_TOOLS[0]?.tool.slug}>
          {SCREEN_TOOLS.map((api) => (
            <option key={api.tool.slug} value={api.tool.slug}>
              {api.tool.name}
            </option>
          ))}
        </select>
      </Field>
      {SCREEN_TOOLS.filter((api) => api.fields.some((f) => f.name !== 'image')).map((api) => (
        <fieldset key={api.tool.slug} className="rounded-xl border border-slate-200 p-4">
          <legend className="px-1 text-sm font-medium text-slate-800">{api.tool.name} options (used when this tool is chosen)</legend>
          {api.fields
            .filter((f) => f.name !== 'image')
            .map((field) => (
              <Field key={field.name} label={field.name} htmlFor={`batch-${field.name}`} errorId={`batch-${field.name}-error`} hint={field.description}>
                <input id={`batch-${field.name}`} name={field.name} type="text" className={inputClass} placeholder="default" />
              </Field>
            ))}
        </fieldset>
      ))}
      <button type="submit" className={buttonClass('primary')}>
        Run the batch
      </button>
    </Form>
  )
}

export function BatchStatus({ batch }: { batch: BatchStatusView }) {
  const ended = batch.status === 'completed'
  return (
    <section aria-labelledby="batch-heading" className="space-y-4">
      <h2 id="batch-heading" className="text-xl font-semibold text-slate-900">
        {ended ? 'Batch complete' : 'Batch running'}: {batch.done} done, {batch.failed} failed, {batch.total} in all
      </h2>
      {!ended ? <p className="text-sm text-slate-600">This page refreshes itself until every file has run.</p> : null}
      <ul className="divide-y divide-slate-200 rounded-xl border border-slate-200" aria-label="Files">
        {batch.items.map((item, i) => (
          <li key={i} className="flex items-center gap-4 p-3 text-sm">
            <span className="min-w-0 flex-1 truncate font-medium text-slate-900">{item.name}</span>
            <progress max={100} value={item.progress} aria-label={`${item.name} progress`} className="w-32" />
            <span className="w-48 text-slate-700">
              {item.status === 'succeeded' && item.result_url ? (
                <a href={`${item.result_url}?download=1`} className="text-indigo-700 underline">
                  Done: download
                </a>
              ) : item.status === 'failed' ? (
                <span className="text-red-700">Failed: {item.error}</span>
              ) : (
                item.status
              )}
            </span>
          </li>
        ))}
      </ul>
      {ended ? (
        <a href={`/api/batches/${batch.id}/download/`} className={buttonClass('primary')} download>
          Download all
        </a>
      ) : null}
      <p>
        <a href="/tools/batch" className="text-sm text-indigo-700 underline">
          Start another batch
        </a>
      </p>
    </section>
  )
}
