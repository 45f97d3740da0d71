// The blurrer's review: every face the detector found and every box the user drew, each with a
// thumbnail and a checkbox (ticked = blurred), and fields to add a box by its numbers. That is the
// whole form without JavaScript. With it the boxes are drawn over the image too: a click or tap on a
// box takes it out of the blur (and again puts it back), a drag on the image adds one; the list stays
// the keyboard's way to do the same, and both edit the same ticks.
import { useRef, useState, type PointerEvent } from 'react'
import { inputClass } from '~/ui/button'
import type { EditView } from '../types'
import { ADD_BOX_HINT, faceRows, faceValue, FIELD, type FaceRow } from './edit-fields'
import { boxFromDrag, cropStyle, toImagePoint } from './face-geometry'

const THUMB = 64

export function FaceReview({ view, resultSrc, hydrated }: { view: EditView; resultSrc: string; hydrated: boolean }) {
  const [rows, setRows] = useState<FaceRow[]>(() => faceRows(view.detectedFaces, view.faces))
  const toggle = (index: number) => setRows((current) => current.map((row, i) => (i === index ? { ...row, blurred: !row.blurred } : row)))
  const blurredCount = rows.filter((row) => row.blurred).length

  return (
    <div className="space-y-4">
      <FaceOverlay view={view} src={resultSrc} rows={rows} interactive={hydrated} onToggle={toggle} onAdd={(row) => setRows((current) => [...current, row])} />
      <fieldset className="space-y-2" data-testid="face-list">
        <legend className="text-base font-semibold text-slate-900">Faces to blur</legend>
        <p className="text-sm text-slate-600">
          {rows.length === 0
            ? 'The detector found no face. Add a box below for any face it missed.'
            : `${blurredCount} of ${rows.length} blurred. Untick a box that is not a face; tick it again to blur it.`}
        </p>
        <ul className="grid gap-2 sm:grid-cols-2">
          {rows.map((row, i) => {
            const id = `face-${i}`
            const name = row.detected ? `Face ${i + 1}` : `Your box ${i + 1}`
            return (
              <li key={`${faceValue(row.box)}-${i}`} className="flex items-center gap-3 rounded-xl border border-slate-200 p-2">
                <span
                  role="img"
                  aria-label={`${name}, at ${Math.round(row.box.x)}, ${Math.round(row.box.y)}`}
                  className="h-16 w-16 shrink-0 rounded-lg bg-slate-200"
                  style={cropStyle(row.box, view, { url: view.photoPreviewUrl, width: view.previewWidth, height: view.previewHeight }, THUMB)}
                />
                <label htmlFor={id} className="flex min-h-11 flex-1 items-center gap-2 text-sm text-slate-900">
                  <input
                    id={id}
                    type="checkbox"
                    name={FIELD.face}
                    value={faceValue(row.box)}
                    checked={row.blurred}
                    onChange={() => toggle(i)}
                    className="h-5 w-5 accent-indigo-600"
                  />
                  <span>
                    <span className="font-medium">Blur {name.toLowerCase()}</span>
                    <span className="block text-xs text-slate-600">
                      {row.detected ? (row.box.score === null ? 'Found by the detector' : `Found by the detector, ${Math.round(row.box.score * 100)}% sure`) : 'Drawn by you'} ·{' '}
                      {Math.round(row.box.width)} × {Math.round(row.box.height)} px
                    </span>
                  </span>
                </label>
              </li>
            )
          })}
        </ul>
      </fieldset>
      <fieldset className="space-y-2" data-testid="add-box">
        <legend className="text-base font-semibold text-slate-900">Add a box the detector missed</legend>
        <p id="add-box-hint" className="text-sm text-slate-600">
          {ADD_BOX_HINT} The image is {view.width} × {view.height} pixels.{hydrated ? ' Or drag over the image above.' : ''}
        </p>
        <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
          {(
            [
              [FIELD.addX, 'x', view.width - 1],
              [FIELD.addY, 'y', view.height - 1],
              [FIELD.addWidth, 'Width', view.width],
              [FIELD.addHeight, 'Height', view.height],
            ] as const
          ).map(([name, label, max]) => (
            <label key={name} className="block text-sm font-medium text-slate-800">
              {label}
              <input
                type="number"
                name={name}
                min={name === FIELD.addX || name === FIELD.addY ? 0 : 1}
                max={max}
                step={1}
                inputMode="numeric"
                aria-describedby="add-box-hint"
                className={`${inputClass} mt-1`}
              />
            </label>
          ))}
        </div>
      </fieldset>
    </div>
  )
}

/** The boxes over the image, numbered as in the list; with JavaScript a click or tap on one switches its blur and a drag adds one. */
function FaceOverlay({
  view,
  src,
  rows,
  interactive,
  onToggle,
  onAdd,
}: {
  view: EditView
  src: string
  rows: FaceRow[]
  interactive: boolean
  onToggle: (index: number) => void
  onAdd: (row: FaceRow) => void
}) {
  // A press starts a drag; one that ends where it began is a tap, on a box (switching it) or on nothing.
  const drag = useRef<{ id: number; from: { x: number; y: number }; box: DOMRect; face: number | null } | null>(null)
  const [drawing, setDrawing] = useState<{ x: number; y: number; width: number; height: number } | null>(null)

  function onPointerDown(event: PointerEvent<SVGSVGElement>) {
    if (event.pointerType === 'mouse' && event.button !== 0) return
    event.preventDefault()
    event.currentTarget.setPointerCapture(event.pointerId)
    const box = event.currentTarget.getBoundingClientRect()
    const face = (event.target as Element).getAttribute('data-face')
    drag.current = { id: event.pointerId, from: toImagePoint(event.clientX, event.clientY, box, view.width, view.height), box, face: face === null ? null : Number(face) }
  }
  function onPointerMove(event: PointerEvent<SVGSVGElement>) {
    const held = drag.current
    if (!held || held.id !== event.pointerId) return
    const to = toImagePoint(event.clientX, event.clientY, held.box, view.width, view.height)
    setDrawing(boxFromDrag(held.from, to, view.width, view.height))
  }
  function onPointerUp(event: PointerEvent<SVGSVGElement>) {
    const held = drag.current
    if (!held || held.id !== event.pointerId) return
    drag.current = null
    setDrawing(null)
    const box = boxFromDrag(held.from, toImagePoint(event.clientX, event.clientY, held.box, view.width, view.height), view.width, view.height)
    if (box) onAdd({ box: { ...box, score: null }, detected: false, blurred: true })
    else if (held.face !== null) onToggle(held.face)
  }
  const stroke = Math.max(2, Math.round(Math.max(view.width, view.height) / 300))

  return (
    <figure className="m-0 space-y-1">
      <div className="relative mx-auto overflow-hidden rounded-xl bg-slate-100" style={{ maxWidth: `min(100%, calc(70vh * ${(view.width / view.height).toFixed(4)}))` }}>
        <img src={src} alt="The blurred result" width={view.width} height={view.height} className="block h-auto w-full" draggable={false} />
        <svg
          viewBox={`0 0 ${view.width} ${view.height}`}
          className={`absolute inset-0 h-full w-full ${interactive ? 'cursor-crosshair touch-none' : ''}`}
          onPointerDown={interactive ? onPointerDown : undefined}
          onPointerMove={interactive ? onPointerMove : undefined}
          onPointerUp={interactive ? onPointerUp : undefined}
          onPointerCancel={() => {
            drag.current = null
            setDrawing(null)
          }}
          aria-hidden="true"
          data-testid="face-overlay"
        >
          {rows.map((row, i) => (
            <g key={i}>
              <rect
                data-face={i}
                data-blurred={row.blurred}
                x={row.box.x}
                y={row.box.y}
                width={row.box.width}
                height={row.box.height}
                className={interactive ? 'cursor-pointer' : undefined}
                fill={row.blurred ? 'rgba(79,70,229,0.15)' : 'rgba(255,255,255,0.01)'}
                stroke={row.blurred ? '#4f46e5' : '#dc2626'}
                strokeWidth={stroke}
                strokeDasharray={row.blurred ? undefined : `${stroke * 3} ${stroke * 2}`}
              />
              <text
                x={row.box.x + stroke}
                y={row.box.y + stroke * 7}
                fontSize={stroke * 7}
                fontWeight={700}
                fill="#fff"
                stroke="#1e1b4b"
                strokeWidth={stroke / 2}
                paintOrder="stroke"
                className="pointer-events-none"
              >
                {i + 1}
              </text>
            </g>
          ))}
          {drawing ? <rect x={drawing.x} y={drawing.y} width={drawing.width} height={drawing.height} fill="none" stroke="#f59e0b" strokeWidth={stroke} /> : null}
        </svg>
      </div>
      <figcaption className="text-center text-xs text-slate-600">
        Numbered as in the list. Solid boxes are blurred, dashed ones are not.{interactive ? ' Tap a box to switch it; drag over the image to add one.' : ''}
      </figcaption>
    </figure>
  )
}
