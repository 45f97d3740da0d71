// The cutout's form controls, the same with and without JavaScript: the subject's parts as the model
// found them (a thumbnail each, keep or remove; a part the refinement dropped says so and is offered
// back) and the edge settings as plain fields.
import { inputClass } from '~/ui/button'
import { EDGE_LIMITS, type EditView } from '../types'
import { FIELD, partField, shownDecision } from './edit-fields'

function percent(value: number): string {
  return `${Math.round(value * 100)}%`
}

export function PartsList({ view }: { view: EditView }) {
  if (view.parts.length === 0) return null
  const imageArea = view.width * view.height
  return (
    <fieldset className="space-y-2" data-testid="parts">
      <legend className="text-base font-semibold text-slate-900">Parts of the subject</legend>
      <p className="text-sm text-slate-600">What the model found, each on its own. Keep what belongs to your subject, remove what does not.</p>
      <ul className="space-y-2">
        {view.parts.map((part, i) => {
          const name = partField(part.id)
          const chosen = shownDecision(part)
          const label = `Part ${i + 1}`
          return (
            <li key={part.id} className="flex items-center gap-3 rounded-xl border border-slate-200 p-2" data-testid="part" data-part={part.id}>
              <img src={part.thumbnailUrl} alt={`${label} of the subject`} width={64} height={64} loading="lazy" className="checkerboard h-16 w-16 shrink-0 rounded-lg object-contain" />
              <div className="min-w-0 flex-1 text-sm">
                <p className="font-medium text-slate-900">
                  {label} · {percent(part.area / imageArea)} of the image
                </p>
                <p className={part.keptByRefinement ? 'text-slate-600' : 'text-amber-900'}>
                  {part.keptByRefinement
                    ? `Kept by the refinement · the model was ${percent(part.meanAlpha)} sure`
                    : `Dropped by the refinement, though the model was ${percent(part.meanAlpha)} sure: keep it to bring it back`}
                </p>
                <div role="radiogroup" aria-label={`${label}: keep or remove`} className="mt-1 flex gap-4">
                  {(['keep', 'remove'] as const).map((decision) => (
                    <label key={decision} className="inline-flex min-h-11 items-center gap-1.5 text-slate-800">
                      <input type="radio" name={name} value={decision} defaultChecked={chosen === decision} className="h-4 w-4 accent-indigo-600" />
                      {decision === 'keep' ? 'Keep' : 'Remove'}
                    </label>
                  ))}
                </div>
              </div>
            </li>
          )
        })}
      </ul>
    </fieldset>
  )
}

export function EdgeFields({ view }: { view: EditView }) {
  return (
    <fieldset className="space-y-3" data-testid="edges">
      <legend className="text-base font-semibold text-slate-900">Edges</legend>
      <input type="hidden" name={FIELD.edges} value="1" />
      <div className="grid grid-cols-2 gap-3">
        <label className="block text-sm font-medium text-slate-800">
          Feather <span className="font-normal text-slate-600">(px, {EDGE_LIMITS.feather.min} to {EDGE_LIMITS.feather.max})</span>
          <input
            type="number"
            name={FIELD.feather}
            defaultValue={view.edges.feather}
            min={EDGE_LIMITS.feather.min}
            max={EDGE_LIMITS.feather.max}
            step={1}
            inputMode="numeric"
            className={`${inputClass} mt-1`}
          />
        </label>
        <label className="block text-sm font-medium text-slate-800">
          Grow or shrink <span className="font-normal text-slate-600">(px, {EDGE_LIMITS.grow.min} to {EDGE_LIMITS.grow.max})</span>
          <input
            type="number"
            name={FIELD.grow}
            defaultValue={view.edges.grow}
            min={EDGE_LIMITS.grow.min}
            max={EDGE_LIMITS.grow.max}
            step={1}
            className={`${inputClass} mt-1`}
          />
        </label>
      </div>
      <p className="text-xs text-slate-600">Feather softens the edge; a positive grow widens the subject, a negative one trims a halo.</p>
      <label className="flex min-h-11 items-start gap-2 text-sm text-slate-800">
        <input type="checkbox" name={FIELD.decontaminate} defaultChecked={view.edges.decontaminate} className="mt-0.5 h-5 w-5 accent-indigo-600" />
        <span>
          <span className="font-medium">Clean edge colours</span>
          <span className="block text-xs text-slate-600">Removes the old background’s colour from hair and soft edges. Untick to keep the photo’s own colours.</span>
        </span>
      </label>
    </fieldset>
  )
}
