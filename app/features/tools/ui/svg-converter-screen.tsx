// The SVG converter: format, scale and background choices, the rendered preview and the export.
// Converting needs an account; visitors see the form and are told to sign in.
import { Link } from '@remix-run/react'
import { useRef, useState } from 'react'
import { DEFAULT_BACKGROUND, SVG_FORMATS, TOOLS, type SvgFormat } from '~/features/tools/catalog'
import type { Viewer } from '~/features/viewer'
import { useHydrated } from '~/ui/use-hydrated'
import { filenameFromContentDisposition } from './content-disposition'
import { DownloadBox } from './download-box'
import type { ToolPageResult } from './page-result'
import {
  convertedFilename,
  DEFAULT_FORMAT,
  DEFAULT_SCALE,
  FORMAT_OPTIONS,
  formatPreviewLabel,
  SCALE_OPTIONS,
  svgBackgroundField,
} from './svg-options'
import { SVG_SIGN_IN_MESSAGE, SVG_SIGN_IN_TOAST } from './tool-messages'
import { useToolRun } from './use-tool-run'
import { useWorkspace } from './use-workspace'
import { StageCompare, StageResultImage, ToolWorkspace } from './workspace'

const tool = TOOLS['svg-converter']
const DONE_TITLE = 'Export ready'
export const SVG_LOGIN_PATH = `/login?from=${tool.path}`

interface Converted {
  url: string
  filename: string
  format: SvgFormat
}

function asFormat(value: string | undefined): SvgFormat {
  return (SVG_FORMATS as readonly string[]).includes(value ?? '') ? (value as SvgFormat) : DEFAULT_FORMAT
}

const selectClass =
  'mt-1 block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-600'

export function SvgConverterScreen({ cost, viewer, pageResult }: { cost: number; viewer: Viewer | undefined; pageResult?: ToolPageResult }) {
  const hydrated = useHydrated()
  const fields = pageResult?.fieldValues
  const [format, setFormat] = useState<SvgFormat>(asFormat(fields?.format))
  const [scale, setScale] = useState(fields?.scale ?? DEFAULT_SCALE)
  const [transparent, setTransparent] = useState(!fields?.background)
  const [background, setBackground] = useState(fields?.background || DEFAULT_BACKGROUND)
  const signedIn = Boolean(viewer?.user)
  // The format actually sent: the select may change while the server works.
  const submittedFormat = useRef(format)
  const run = useToolRun<Converted>(tool, {
    interpret: async (response) => ({
      url: URL.createObjectURL(response.body),
      filename: convertedFilename(filenameFromContentDisposition(response.header('Content-Disposition')), submittedFormat.current),
      format: submittedFormat.current,
    }),
    release: (result) => URL.revokeObjectURL(result.url),
  })
  const ws = useWorkspace(tool, run)
  const pageOk = pageResult?.ok ? pageResult : undefined

  const options = (
    <>
      <div className="grid gap-3 sm:grid-cols-2">
      <label className="block text-sm font-semibold text-slate-900">
        Export format
        <select name="format" value={format} onChange={(e) => setFormat(asFormat(e.currentTarget.value))} className={selectClass}>
          {FORMAT_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <label className="block text-sm font-semibold text-slate-900">
        Scale
        <select name="scale" value={scale} onChange={(e) => setScale(e.currentTarget.value)} className={selectClass}>
          {SCALE_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
    </div>
    {hydrated ? (
      <div className="space-y-2">
        <label className="flex items-center justify-between gap-3 text-sm font-semibold text-slate-900">
          <span>
            Transparent background
            <span className="block text-xs font-normal text-slate-500">Alpha is preserved for PNG and WebP only.</span>
          </span>
          <input
            type="checkbox"
            role="switch"
            checked={transparent}
            onChange={(e) => setTransparent(e.currentTarget.checked)}
            aria-checked={transparent}
            className="peer sr-only"
            data-testid="transparent-switch"
          />
          <span
            aria-hidden="true"
            className="relative inline-flex h-6 w-11 shrink-0 rounded-full bg-slate-300 transition-colors peer-checked:bg-indigo-600 peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-indigo-600 after:absolute after:left-0.5 after:top-0.5 after:h-5 after:w-5 after:rounded-full after:bg-white after:shadow after:transition-transform peer-checked:after:translate-x-5"
          />
        </label>
        {transparent ? null : (
          <label className="block text-sm font-semibold text-slate-900">
            Background colour
            <input
              type="text"
              value={background}
              onChange={(e) => setBackground(e.currentTarget.value)}
              autoComplete="off"
              spellCheck={false}
              className={`${selectClass} font-mono`}
              data-testid="svg-background"
            />
          </label>
        )}
      </div>
    ) : (
      // Without JavaScript the colour field cannot appear on demand: a checkbox sends the default
      // colour, and leaving it clear keeps the background transparent.
      <label className="flex items-start gap-2 text-sm text-slate-900">
        <input type="checkbox" name="background" value={DEFAULT_BACKGROUND} defaultChecked={Boolean(fields?.background)} className="mt-0.5 h-4 w-4 accent-indigo-600" />
        <span>
          <span className="font-semibold">Solid {DEFAULT_BACKGROUND} background</span>
          <span className="block text-xs text-slate-500">Leave clear for a transparent background (alpha preserved for PNG/WebP only).</span>
        </span>
      </label>
    )}
    </>
  )

  const chosenView = run.fileUrl ? (
    <figure className="m-0">
      <div className="flex justify-center overflow-hidden rounded-xl bg-slate-100 p-4">
        <img src={run.fileUrl} alt="Original SVG" className="block h-auto w-full object-contain" style={{ maxHeight: 'var(--stage-max)' }} data-testid="upload-preview" />
      </div>
      <figcaption className="mt-1 text-center text-xs text-slate-600">Original SVG · {formatPreviewLabel(format)} after converting</figcaption>
    </figure>
  ) : null

  const resultView = run.result && run.fileUrl ? (
    <>
      <StageCompare
        size={ws.size}
        before={{ src: run.fileUrl, alt: 'Original SVG', label: 'Original SVG' }}
        after={{ src: run.result.url, alt: run.result.filename, label: run.result.filename }}
      />
      <DownloadBox title={DONE_TITLE} href={run.result.url} filename={run.result.filename}>
        <p>
          {run.result.format.toUpperCase()} at {scale}×
        </p>
      </DownloadBox>
    </>
  ) : null

  const pageResultView = pageOk ? (
    <>
      <StageResultImage src={pageOk.resultUrl} alt={pageOk.filename} checkerboard />
      <DownloadBox title={DONE_TITLE} href={pageOk.downloadUrl} filename={convertedFilename(pageOk.filename, asFormat(fields?.format))} />
    </>
  ) : null

  const notes = signedIn ? null : (
    <p className="text-sm text-slate-600">
      Converting SVG files needs a free account.{' '}
      <Link to={SVG_LOGIN_PATH} className="font-semibold text-indigo-700 underline underline-offset-2">
        Sign in or create one
      </Link>
      .
    </p>
  )

  return (
    <ToolWorkspace
      tool={tool}
      cost={cost}
      viewer={viewer}
      run={run}
      ws={ws}
      pageResult={pageResult}
      formLabel="Convert SVG"
      processLabel="Convert asset"
      busyLabel="Converting…"
      doneTitle={DONE_TITLE}
      onRun={(form) => {
        if (!signedIn) {
          run.refuse(SVG_SIGN_IN_MESSAGE, SVG_SIGN_IN_TOAST)
          return
        }
        form.set('format', format)
        submittedFormat.current = format
        form.set('scale', scale)
        const bg = svgBackgroundField(transparent, background)
        if (bg === null) form.delete('background')
        else form.set('background', bg)
        void run.run(form)
      }}
      options={options}
      notes={notes}
      chosenView={chosenView}
      resultView={resultView}
      pageResultView={pageResultView}
      needsSignIn={run.error === SVG_SIGN_IN_MESSAGE}
      signInPath={SVG_LOGIN_PATH}
    />
  )
}
