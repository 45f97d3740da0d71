// The correction page: one form that works without JavaScript (parts and edges for a cutout, face
// ticks and a box to add for a blur) and posts to the page's action, which applies the correction
// (no model, no charge) and shows the page again with the corrected result and its download. With
// JavaScript the cutout gets the brush (its mask sent with the same form) and the faces their boxes
// over the image, and Apply re-renders without leaving the page.
import { Link, useNavigation, useSubmit } from '@remix-run/react'
import { useEffect, useRef, type FormEvent } from 'react'
import { DownloadBox } from '~/features/tools/ui/download-box'
import { buttonClass } from '~/ui/button'
import { CompareSlider } from '~/ui/compare-slider'
import { FormMessage } from '~/ui/field'
import { useHydrated } from '~/ui/use-hydrated'
import { editPath, editPreviewUrl, type EditView } from '../types'
import { BrushEditor, type BrushEditorHandle } from './brush-editor'
import { EdgeFields, PartsList } from './cutout-controls'
import { CORRECTION_FREE, FIELD } from './edit-fields'
import { FaceReview } from './face-review'

export const EDIT_TITLES = { cutout: 'Correct the cutout by hand', faces: 'Review the blurred faces' } as const
export const APPLIED_MESSAGE = 'Correction applied. The result below and its download are the corrected image.'
export const APPLYING = 'Applying…'

function withParam(url: string, name: string, value: string | number): string {
  return `${url}${url.includes('?') ? '&' : '?'}${name}=${value}`
}

/** A result's download address (the results route sends it as an attachment). */
export function downloadHref(resultUrl: string): string {
  return withParam(resultUrl, 'download', 1)
}

function utcMinute(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

export function EditScreen({ view, shownAt, applied, error }: { view: EditView; shownAt: number; applied: boolean; error: string | null }) {
  // A correction replaces the result at the same address: the image is asked for anew with each reading.
  const resultSrc = withParam(view.resultUrl, 'v', shownAt)
  // The before/after shows the result at the preview's size: the full-size one (a 12 MP PNG) was
  // decoded in the browser beside the brush's first strokes (decision 182). The download is full size.
  const resultPreviewSrc = withParam(editPreviewUrl(view.jobId, 'result'), 'v', shownAt)
  const hydrated = useHydrated()
  const editor = useRef<BrushEditorHandle>(null)
  const submit = useSubmit()
  const navigation = useNavigation()
  const action = editPath(view.jobId)
  const applying = navigation.state === 'submitting' && navigation.formAction?.split('?')[0] === action
  const message = useRef<HTMLDivElement>(null)

  // After Apply (with JavaScript) the page stays where it is; its outcome is announced and focused.
  useEffect(() => {
    if ((applied || error) && hydrated) message.current?.focus()
    // Each new outcome only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [applied, error, shownAt])

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const mask = await editor.current?.maskPng()
    if (mask) form.set(FIELD.mask, mask, 'mask.png')
    submit(form, { method: 'post', action, encType: 'multipart/form-data', preventScrollReset: true, replace: true })
  }

  const cutout = view.kind === 'cutout'
  return (
    <div className="mx-auto w-full max-w-6xl px-4 py-6 sm:px-6">
      <p className="text-sm">
        <Link to="/history" className="font-semibold text-indigo-700 underline underline-offset-2">
          Your history
        </Link>
        <span className="text-slate-500"> · </span>
        <Link to={`/tools/${view.tool}`} className="font-semibold text-indigo-700 underline underline-offset-2">
          {cutout ? 'Remove another background' : 'Blur another image'}
        </Link>
      </p>
      <h1 className="mt-2 text-2xl font-bold tracking-tight text-slate-950 sm:text-3xl">{EDIT_TITLES[view.kind]}</h1>
      <p className="mt-1 break-words text-sm text-slate-600">
        {view.filename} · {view.width} × {view.height} px · kept until {utcMinute(view.expiresAt)}. {CORRECTION_FREE}
      </p>

      <div ref={message} tabIndex={-1} className="mt-4 outline-none empty:hidden" data-testid="edit-message">
        {error ? (
          <FormMessage tone="error">{error}</FormMessage>
        ) : applied ? (
          <FormMessage tone="success">{APPLIED_MESSAGE}</FormMessage>
        ) : null}
      </div>

      <form method="post" action={action} encType={hydrated ? 'multipart/form-data' : undefined} onSubmit={hydrated ? (e) => void onSubmit(e) : undefined} aria-label={EDIT_TITLES[view.kind]} className="mt-4">
        <div className="grid gap-4 lg:grid-cols-[minmax(0,7fr)_minmax(0,4fr)] lg:items-start">
          <section aria-label={cutout ? 'Brush' : 'Faces'} className="min-w-0 space-y-3 rounded-2xl border border-slate-200 bg-white p-3 shadow-sm sm:p-4">
            {cutout ? (
              hydrated && view.mattePreviewUrl ? (
                <BrushEditor
                  key={view.jobId}
                  ref={editor}
                  photoUrl={view.photoPreviewUrl}
                  matteUrl={view.mattePreviewUrl}
                  maskUrl={view.maskPreviewUrl}
                  width={view.previewWidth}
                  height={view.previewHeight}
                />
              ) : (
                <p className="text-sm text-slate-700" data-testid="no-brush">
                  The brush needs JavaScript. Without it, keep or remove the subject’s parts and set the edges, then apply.
                </p>
              )
            ) : (
              // Remounted with each applied correction: its ticks start from what is blurred now.
              <FaceReview key={view.faces.map((f) => `${f.x},${f.y},${f.width},${f.height}`).join(';')} view={view} resultSrc={resultSrc} hydrated={hydrated} />
            )}
          </section>
          <section aria-label="Settings" className="min-w-0 space-y-5 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm">
            {cutout ? (
              <>
                <PartsList view={view} />
                <EdgeFields view={view} />
              </>
            ) : (
              <p className="text-sm text-slate-700">
                Blur radius of this run: {view.blurRadius ?? 'as chosen'}. Every ticked box is blurred again from the original photo; an unticked one is left sharp.
              </p>
            )}
            <div className="space-y-1">
              <button type="submit" disabled={applying} className={buttonClass('primary', 'w-full')} data-testid="apply">
                {applying ? APPLYING : 'Apply correction'}
              </button>
              <p className="text-xs text-slate-600">{CORRECTION_FREE}</p>
            </div>
          </section>
        </div>
      </form>

      <section aria-labelledby="result-heading" className="mt-6 space-y-3 rounded-2xl border border-slate-200 bg-white p-3 shadow-sm sm:p-4" data-testid="edit-result">
        <h2 id="result-heading" className="text-lg font-semibold text-slate-900">
          {view.corrected ? 'Corrected result' : 'Result'}
        </h2>
        <div className="mx-auto" style={{ maxWidth: `min(100%, calc(70vh * ${(view.width / view.height).toFixed(4)}))` }}>
          <CompareSlider
            before={{ src: view.photoPreviewUrl, alt: 'Original photo', label: 'Original' }}
            after={{ src: resultPreviewSrc, alt: cutout ? 'Current cutout' : 'Current blurred image', label: view.corrected ? 'Corrected' : 'Result' }}
            width={view.width}
            height={view.height}
          />
        </div>
        <DownloadBox title={view.corrected ? 'Corrected result ready' : 'Result ready'} href={downloadHref(view.resultUrl)} filename={view.filename}>
          <p>{cutout ? 'At the original resolution, with your corrections.' : 'At the original resolution, the ticked faces blurred.'}</p>
        </DownloadBox>
        <Link to={`/tools/${view.tool}`} className={buttonClass('secondary')}>
          {cutout ? 'Remove another background' : 'Blur another image'}
        </Link>
      </section>
    </div>
  )
}
