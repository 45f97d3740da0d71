// The background remover: upload, transparent or coloured backdrop, cutout preview and downloads.
import { useState, type CSSProperties } from 'react'
import { BACKGROUND_PRESETS, TOOLS } from '~/features/tools/catalog'
import type { Viewer } from '~/features/viewer'
import { trackEvent } from '~/features/analytics/track'
import { toast } from '~/ui/toast'
import { useHydrated } from '~/ui/use-hydrated'
import { appliedColour, cutoutFilename, DEFAULT_CUSTOM_COLOUR, isHexColour, type BackgroundChoice } from './background-colour'
import { CHECKERBOARD_STYLE, renderColouredCutout, saveBlob } from './canvas-cutout'
import { DownloadBox } from './download-box'
import type { ToolPageResult } from './page-result'
import { COLOURED_DOWNLOAD_FAILED, ERROR_TOAST_MS } from './tool-messages'
import { useToolRun } from './use-tool-run'
import { useWorkspace } from './use-workspace'
import { StageCompare, StageResultImage, ToolWorkspace } from './workspace'

const tool = TOOLS['background-remover']
const DONE_TITLE = 'Cutout ready'

interface Cutout {
  url: string
}

const PRESET_LABELS: Record<string, string> = { white: 'White', black: 'Black' }

export function BackgroundRemoverScreen({ cost, viewer, pageResult }: { cost: number; viewer: Viewer | undefined; pageResult?: ToolPageResult }) {
  const hydrated = useHydrated()
  const [choice, setChoice] = useState<BackgroundChoice>({ mode: 'transparent' })
  const [custom, setCustom] = useState(DEFAULT_CUSTOM_COLOUR)
  const run = useToolRun<Cutout>(tool, {
    interpret: async (response) => ({ url: URL.createObjectURL(response.body) }),
    release: (cutout) => URL.revokeObjectURL(cutout.url),
  })
  const ws = useWorkspace(tool, run)
  const colour = appliedColour(choice)
  const pageOk = pageResult?.ok ? pageResult : undefined

  function choose(next: BackgroundChoice) {
    setChoice(next)
    const applied = appliedColour(next)
    // One event per colour actually applied, not one per keystroke in the custom field.
    if (applied && applied !== colour) trackEvent('bg_remove_color_selected', { color: applied })
  }

  async function downloadColoured() {
    if (!run.result || !colour) return
    try {
      saveBlob(await renderColouredCutout(run.result.url, colour), cutoutFilename(colour))
      trackEvent('bg_remove_colored_download', { color: colour })
    } catch {
      toast({ ...COLOURED_DOWNLOAD_FAILED, variant: 'destructive', durationMs: ERROR_TOAST_MS })
    }
  }

  const options = (
    <fieldset className="space-y-3">
      <legend className="text-sm font-semibold text-slate-900">Background</legend>
      <div className="flex flex-wrap gap-2">
        <ColourOption
          label="Transparent"
          value=""
          checked={choice.mode === 'transparent'}
          onSelect={() => choose({ mode: 'transparent' })}
          swatchStyle={CHECKERBOARD_STYLE}
        />
        {BACKGROUND_PRESETS.map((preset) => (
          <ColourOption
            key={preset}
            label={PRESET_LABELS[preset] ?? preset}
            value={preset}
            checked={choice.mode === 'preset' && choice.preset === preset}
            onSelect={() => choose({ mode: 'preset', preset })}
            swatchStyle={{ backgroundColor: preset }}
          />
        ))}
      </div>
      {/* Without JavaScript the form posts background=custom and the typed colour; the server
          checks it. With JavaScript the colour is applied in the browser as it is typed. */}
      <div className="space-y-1">
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input
            type="radio"
            name="background"
            value="custom"
            checked={choice.mode === 'custom'}
            onChange={() => choose({ mode: 'custom', value: custom })}
            className="h-4 w-4 accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
          />
          Custom colour
        </label>
        <div className="flex items-center gap-2">
          <label htmlFor="custom-colour" className="sr-only">
            Custom colour (hex)
          </label>
          <input
            id="custom-colour"
            name="background_custom"
            type="text"
            inputMode="text"
            autoComplete="off"
            spellCheck={false}
            value={custom}
            onFocus={() => choice.mode !== 'custom' && choose({ mode: 'custom', value: custom })}
            onChange={(event) => {
              const value = event.currentTarget.value
              setCustom(value)
              choose({ mode: 'custom', value })
            }}
            aria-invalid={choice.mode === 'custom' && !isHexColour(custom)}
            aria-describedby="custom-colour-hint"
            className="w-32 rounded-lg border border-slate-300 px-3 py-2 font-mono text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-600"
            data-testid="custom-colour"
          />
          {/* The swatch follows the typing only once hydrated; before that it would be stale. */}
          {hydrated ? (
            <span aria-hidden="true" className="h-8 w-8 rounded-md border border-slate-300" style={isHexColour(custom) ? { backgroundColor: custom } : CHECKERBOARD_STYLE} />
          ) : null}
        </div>
        <p id="custom-colour-hint" className="text-xs text-slate-600">
          {hydrated
            ? 'Hex with a leading #, 3 or 6 digits (e.g. #ffffff). Changing the colour after a run is free.'
            : 'Choose Custom colour, then type a hex with a leading #, 3 or 6 digits (e.g. #ffffff).'}
        </p>
      </div>
    </fieldset>
  )

  const backdrop = colour ? { backgroundColor: colour } : CHECKERBOARD_STYLE
  const resultView =
    run.result && run.fileUrl ? (
      <>
        <StageCompare
          size={ws.size}
          before={{ src: run.fileUrl, alt: 'Original upload', label: 'Original' }}
          after={{ src: run.result.url, alt: 'Cutout with the chosen background', label: 'Cutout', style: backdrop }}
        />
        <DownloadBox
          title={DONE_TITLE}
          href={run.result.url}
          filename={tool.downloadName}
          label="Download transparent PNG"
          actions={
            colour ? (
              <button
                type="button"
                onClick={() => void downloadColoured()}
                className="inline-flex min-h-11 items-center justify-center rounded-lg border border-emerald-700 bg-white px-4 py-2 font-semibold text-emerald-800 hover:bg-emerald-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-800"
                data-testid="download-coloured"
              >
                Download with {colour} background
              </button>
            ) : null
          }
        >
          <p>Transparent PNG at the original resolution{colour ? `, or ${cutoutFilename(colour)} on ${colour}` : ''}.</p>
        </DownloadBox>
      </>
    ) : null

  const pageResultView = pageOk ? (
    <>
      <StageResultImage src={pageOk.resultUrl} alt="Background removed result" checkerboard />
      <DownloadBox title={DONE_TITLE} href={pageOk.downloadUrl} filename={pageOk.filename} />
    </>
  ) : null

  return (
    <ToolWorkspace
      tool={tool}
      cost={cost}
      viewer={viewer}
      run={run}
      ws={ws}
      pageResult={pageResult}
      formLabel="Remove background"
      processLabel="Remove background"
      busyLabel="Removing background…"
      doneTitle={DONE_TITLE}
      onRun={(form) => {
        // The server returns the transparent cutout; colours are composited here, free of charge.
        form.delete('background')
        form.delete('background_custom')
        void run.run(form)
      }}
      options={options}
      resultView={resultView}
      pageResultView={pageResultView}
    />
  )
}

function ColourOption({
  label,
  value,
  checked,
  onSelect,
  swatchStyle,
}: {
  label: string
  value: string
  checked: boolean
  onSelect: () => void
  swatchStyle: CSSProperties
}) {
  return (
    <label className="group relative cursor-pointer" title={label}>
      <input type="radio" name="background" value={value} checked={checked} onChange={onSelect} className="peer sr-only" />
      <span
        aria-hidden="true"
        className="block h-10 w-10 rounded-lg border border-slate-300 ring-offset-2 peer-checked:ring-2 peer-checked:ring-indigo-600 peer-focus-visible:outline-2 peer-focus-visible:outline-offset-4 peer-focus-visible:outline-indigo-600"
        style={swatchStyle}
      />
      <span className="sr-only">{label}</span>
    </label>
  )
}
