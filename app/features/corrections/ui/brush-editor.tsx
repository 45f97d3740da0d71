// The cutout's brush (JavaScript only): erase and restore strokes over the photo's preview (long side
// at most EDIT_PREVIEW_MAX_SIDE, never the full-size image), the alpha they make shown as a cutout on
// a checkerboard or as a red tint over what is removed. One code path for mouse, touch and pen
// (pointer events; touch-action none, so a finger draws instead of scrolling), and the keyboard (the
// canvas takes focus: arrows move a brush cursor, Space or Enter paints, [ and ] resize, E and R pick
// the mode). A pointer move only paints its segment into the mask (brush-mask.ts) and marks the box it
// touched; the picture is composed once per animation frame, for that box only.
import { forwardRef, useCallback, useEffect, useId, useImperativeHandle, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react'
import {
  BRUSH_HARDNESS,
  BRUSH_SIZE,
  BrushMask,
  clampBrushSize,
  clampHardness,
  composeRect,
  maskFromRgba,
  maskToRgba,
  unionRect,
  warmUpBrush,
  type AlphaView,
  type BrushMode,
  type Rect,
} from './brush-mask'
import { brushKey, cursorStep, historyKey, isTextEntry } from './editor-keys'

export interface BrushEditorProps {
  photoUrl: string
  matteUrl: string
  /** The strokes stored with the result: the editor starts from them. */
  maskUrl: string | null
  width: number
  height: number
}

export interface BrushEditorHandle {
  /** The mask as a greyscale PNG at the preview size; null until the editor has loaded. */
  maskPng(): Promise<Blob | null>
}

type LoadState = 'loading' | 'ready' | 'failed'

async function loadPixels(url: string, width: number, height: number): Promise<Uint8ClampedArray> {
  const image = new Image()
  image.decoding = 'async'
  image.src = url
  await image.decode()
  const canvas = document.createElement('canvas')
  canvas.width = width
  canvas.height = height
  const context = canvas.getContext('2d', { willReadFrequently: true })
  if (!context) throw new Error('No 2D canvas')
  context.drawImage(image, 0, 0, width, height)
  return context.getImageData(0, 0, width, height).data
}

const toolButton =
  'inline-flex min-h-11 items-center justify-center rounded-lg border px-3 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed disabled:opacity-50'

export const BrushEditor = forwardRef<BrushEditorHandle, BrushEditorProps>(function BrushEditor({ photoUrl, matteUrl, maskUrl, width, height }, ref) {
  const canvasRef = useRef<HTMLCanvasElement>(null)
  const cursorRef = useRef<HTMLDivElement>(null)
  const maskRef = useRef<BrushMask | null>(null)
  const pixels = useRef<{ photo: Uint8ClampedArray; matte: Uint8Array; out: ImageData } | null>(null)
  const dirty = useRef<Rect | null>(null)
  const frame = useRef<number | null>(null)
  const pointer = useRef<{ id: number; box: DOMRect } | null>(null)
  const keyCursor = useRef({ x: width / 2, y: height / 2 })
  const spaceDown = useRef(false)
  const [load, setLoad] = useState<LoadState>('loading')
  const [mode, setMode] = useState<BrushMode>('erase')
  const [size, setSize] = useState<number>(BRUSH_SIZE.default)
  const [hardness, setHardness] = useState<number>(BRUSH_HARDNESS.default)
  const [view, setView] = useState<AlphaView>('cutout')
  const [history, setHistory] = useState({ undo: false, redo: false })
  const brush = useRef({ mode, size, hardness })
  brush.current = { mode, size, hardness }
  const viewRef = useRef(view)
  viewRef.current = view
  const helpId = useId()

  const flush = useCallback(() => {
    frame.current = null
    const rect = dirty.current
    const context = canvasRef.current?.getContext('2d')
    const data = pixels.current
    const mask = maskRef.current
    dirty.current = null
    if (!rect || !context || !data || !mask) return
    composeRect(data.out.data, data.photo, data.matte, mask.values, width, rect, viewRef.current)
    context.putImageData(data.out, 0, 0, rect.x, rect.y, rect.width, rect.height)
  }, [width])

  const redraw = useCallback(
    (rect: Rect | null) => {
      if (!rect) return
      dirty.current = unionRect(dirty.current, rect)
      if (frame.current === null) frame.current = requestAnimationFrame(flush)
    },
    [flush],
  )
  const whole = useCallback(() => redraw({ x: 0, y: 0, width, height }), [redraw, width, height])

  const syncHistory = useCallback(() => {
    const mask = maskRef.current
    setHistory({ undo: Boolean(mask?.canUndo), redo: Boolean(mask?.canRedo) })
  }, [])

  // The three pictures, read once at the preview size.
  useEffect(() => {
    let cancelled = false
    Promise.all([loadPixels(photoUrl, width, height), loadPixels(matteUrl, width, height), maskUrl ? loadPixels(maskUrl, width, height) : null])
      .then(([photo, matteRgba, maskRgba]) => {
        if (cancelled) return
        warmUpBrush()
        maskRef.current = new BrushMask(width, height, maskRgba ? maskFromRgba(maskRgba, width, height) : undefined)
        pixels.current = { photo, matte: maskFromRgba(matteRgba, width, height), out: new ImageData(width, height) }
        setLoad('ready')
        whole()
      })
      .catch(() => {
        if (!cancelled) setLoad('failed')
      })
    return () => {
      cancelled = true
    }
    // The editor is keyed by its job: the pictures are read once, strokes then live here.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  useEffect(() => whole(), [view, whole])
  useEffect(
    () => () => {
      if (frame.current !== null) cancelAnimationFrame(frame.current)
      frame.current = null
    },
    [],
  )

  const undo = useCallback(() => {
    redraw(maskRef.current?.undo() ?? null)
    syncHistory()
  }, [redraw, syncHistory])
  const redo = useCallback(() => {
    redraw(maskRef.current?.redo() ?? null)
    syncHistory()
  }, [redraw, syncHistory])

  // Ctrl/Cmd+Z and its redo anywhere on the page, except where a text field has its own.
  useEffect(() => {
    function onKey(event: globalThis.KeyboardEvent) {
      const which = historyKey(event)
      if (!which || isTextEntry(event.target)) return
      event.preventDefault()
      if (which === 'undo') undo()
      else redo()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [undo, redo])

  useImperativeHandle(
    ref,
    () => ({
      async maskPng() {
        const mask = maskRef.current
        if (!mask) return null
        mask.end()
        const canvas = document.createElement('canvas')
        canvas.width = mask.width
        canvas.height = mask.height
        const context = canvas.getContext('2d')
        if (!context) return null
        context.putImageData(new ImageData(maskToRgba(mask.values), mask.width, mask.height), 0, 0)
        return new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'))
      },
    }),
    [],
  )

  /** The brush outline over the canvas, at a point in preview pixels (moved by style, never by render). */
  const showCursor = useCallback(
    (x: number, y: number, box?: DOMRect) => {
      const outline = cursorRef.current
      const canvas = canvasRef.current
      if (!outline || !canvas) return
      const shown = box ?? canvas.getBoundingClientRect()
      const scale = shown.width / width
      const diameter = brush.current.size * scale
      outline.style.width = `${diameter}px`
      outline.style.height = `${diameter}px`
      outline.style.transform = `translate(${x * scale - diameter / 2}px, ${y * (shown.height / height) - diameter / 2}px)`
      outline.style.opacity = '1'
    },
    [width, height],
  )

  function point(event: PointerEvent<HTMLCanvasElement>, box: DOMRect) {
    return { x: ((event.clientX - box.left) / box.width) * width, y: ((event.clientY - box.top) / box.height) * height }
  }

  function onPointerDown(event: PointerEvent<HTMLCanvasElement>) {
    const mask = maskRef.current
    if (!mask || (event.pointerType === 'mouse' && event.button !== 0)) return
    event.preventDefault()
    event.currentTarget.setPointerCapture(event.pointerId)
    event.currentTarget.focus({ preventScroll: true })
    const box = event.currentTarget.getBoundingClientRect()
    pointer.current = { id: event.pointerId, box }
    const at = point(event, box)
    keyCursor.current = at
    showCursor(at.x, at.y, box)
    redraw(mask.begin(brush.current, at.x, at.y))
  }

  function onPointerMove(event: PointerEvent<HTMLCanvasElement>) {
    const held = pointer.current
    const box = held?.box ?? event.currentTarget.getBoundingClientRect()
    const at = point(event, box)
    showCursor(at.x, at.y, box)
    if (!held || held.id !== event.pointerId) return
    redraw(maskRef.current?.to(at.x, at.y) ?? null)
  }

  function onPointerEnd(event: PointerEvent<HTMLCanvasElement>) {
    if (pointer.current?.id !== event.pointerId) return
    pointer.current = null
    maskRef.current?.end()
    syncHistory()
  }

  function onKeyDown(event: KeyboardEvent<HTMLCanvasElement>) {
    const mask = maskRef.current
    const action = brushKey(event)
    if (!mask || !action) return
    event.preventDefault()
    const at = keyCursor.current
    if (action.kind === 'move') {
      const step = cursorStep(brush.current.size, event.shiftKey)
      const next = { x: Math.min(width, Math.max(0, at.x + action.dx * step)), y: Math.min(height, Math.max(0, at.y + action.dy * step)) }
      keyCursor.current = next
      showCursor(next.x, next.y)
      // Space held down draws along the moves, as a held mouse button does.
      if (spaceDown.current && mask.drawing) redraw(mask.to(next.x, next.y))
    } else if (action.kind === 'paint') {
      if (event.key === ' ') {
        if (event.repeat || spaceDown.current) return
        spaceDown.current = true
        showCursor(at.x, at.y)
        redraw(mask.begin(brush.current, at.x, at.y))
      } else {
        redraw(mask.begin(brush.current, at.x, at.y))
        mask.end()
        syncHistory()
      }
    } else if (action.kind === 'size') {
      setSize((current) => clampBrushSize(current + action.delta * BRUSH_SIZE.step))
    } else {
      setMode(action.mode)
    }
  }

  function onKeyUp(event: KeyboardEvent<HTMLCanvasElement>) {
    if (event.key !== ' ' || !spaceDown.current) return
    spaceDown.current = false
    maskRef.current?.end()
    syncHistory()
  }

  function clear() {
    redraw(maskRef.current?.clear() ?? null)
    syncHistory()
  }

  return (
    <div className="space-y-3" data-testid="brush-editor" data-state={load}>
      <div role="toolbar" aria-label="Brush" aria-controls="brush-canvas" className="flex flex-wrap items-center gap-2">
        <div role="group" aria-label="Brush mode" className="inline-flex gap-1">
          {(['erase', 'restore'] as const).map((m) => (
            <button
              key={m}
              type="button"
              aria-pressed={mode === m}
              aria-keyshortcuts={m === 'erase' ? 'E' : 'R'}
              onClick={() => setMode(m)}
              className={`${toolButton} ${mode === m ? 'border-indigo-600 bg-indigo-600 text-white' : 'border-slate-300 bg-white text-slate-800 hover:bg-slate-50'}`}
            >
              {m === 'erase' ? 'Erase' : 'Restore'}
            </button>
          ))}
        </div>
        <button type="button" onClick={undo} disabled={!history.undo} className={`${toolButton} border-slate-300 bg-white text-slate-800`} aria-keyshortcuts="Control+Z Meta+Z">
          Undo
        </button>
        <button type="button" onClick={redo} disabled={!history.redo} className={`${toolButton} border-slate-300 bg-white text-slate-800`} aria-keyshortcuts="Control+Shift+Z Meta+Shift+Z Control+Y">
          Redo
        </button>
        <button type="button" onClick={clear} disabled={load !== 'ready'} className={`${toolButton} border-slate-300 bg-white text-slate-800`}>
          Clear strokes
        </button>
      </div>
      <div className="grid gap-3 sm:grid-cols-3">
        <label className="block text-sm font-medium text-slate-800">
          Brush size <span className="font-normal text-slate-600">{size} px</span>
          <input
            type="range"
            min={BRUSH_SIZE.min}
            max={BRUSH_SIZE.max}
            step={1}
            value={size}
            onChange={(e) => setSize(clampBrushSize(e.currentTarget.valueAsNumber))}
            className="mt-1 block w-full accent-indigo-600"
            aria-keyshortcuts="[ ]"
          />
        </label>
        <label className="block text-sm font-medium text-slate-800">
          Hardness <span className="font-normal text-slate-600">{Math.round(hardness * 100)}%</span>
          <input
            type="range"
            min={BRUSH_HARDNESS.min}
            max={BRUSH_HARDNESS.max}
            step={BRUSH_HARDNESS.step}
            value={hardness}
            onChange={(e) => setHardness(clampHardness(e.currentTarget.valueAsNumber))}
            className="mt-1 block w-full accent-indigo-600"
          />
        </label>
        <fieldset className="text-sm">
          <legend className="font-medium text-slate-800">Show</legend>
          <div className="mt-1 flex gap-3">
            {(
              [
                ['cutout', 'Cutout'],
                ['overlay', 'Red overlay'],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="inline-flex min-h-11 items-center gap-1.5 text-slate-800">
                <input type="radio" name="brush-view" checked={view === value} onChange={() => setView(value)} className="h-4 w-4 accent-indigo-600" />
                {label}
              </label>
            ))}
          </div>
        </fieldset>
      </div>
      <div className="relative mx-auto overflow-hidden rounded-xl" style={{ maxWidth: `min(100%, calc(70vh * ${(width / height).toFixed(4)}))` }}>
        <canvas
          id="brush-canvas"
          ref={canvasRef}
          width={width}
          height={height}
          tabIndex={0}
          aria-label={`Photo to paint on: ${mode === 'erase' ? 'erasing' : 'restoring'}, brush ${size} px`}
          aria-describedby={helpId}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerEnd}
          onPointerCancel={onPointerEnd}
          onPointerLeave={() => {
            if (cursorRef.current && !pointer.current) cursorRef.current.style.opacity = '0'
          }}
          onKeyDown={onKeyDown}
          onKeyUp={onKeyUp}
          onFocus={() => showCursor(keyCursor.current.x, keyCursor.current.y)}
          className={`block h-auto w-full cursor-crosshair touch-none select-none focus-visible:outline-4 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${view === 'cutout' ? 'checkerboard' : 'bg-slate-100'}`}
          data-testid="brush-canvas"
        />
        <div
          ref={cursorRef}
          aria-hidden="true"
          className="pointer-events-none absolute left-0 top-0 rounded-full border-2 border-white opacity-0 shadow-[0_0_0_1px_rgba(15,23,42,0.7)]"
        />
        {load === 'loading' ? <p className="absolute inset-0 flex items-center justify-center bg-white/70 text-sm font-medium text-slate-800">Loading the photo…</p> : null}
      </div>
      {load === 'failed' ? (
        <p role="alert" className="text-sm text-red-800">
          The photo could not be loaded for the brush. The part and edge controls below still work.
        </p>
      ) : null}
      <p id={helpId} className="text-xs text-slate-600">
        Paint to erase or restore. Keyboard: arrows move the brush (Shift moves farther), hold Space or press Enter to paint, [ and ] change the size, E erases and R
        restores, Ctrl+Z undoes and Ctrl+Y or Shift+Ctrl+Z redoes (⌘ on a Mac).
      </p>
    </div>
  )
})
