// Each tool's option controls, written once: the tool's own screen and the batch screen both draw
// them (same names, limits and wording), so a rule changed here changes both. The state lives with
// the screen that draws them; these components only show it and report changes. Every control is a
// real form control that posts without JavaScript.
import { useState, type CSSProperties } from 'react'
import { AUTO_FORMAT_RULE, BACKGROUND_PRESETS, BLUR, DEFAULT_BACKGROUND, DEFAULT_OUTPUT_FORMAT, DENOISE, OUTPUT_FORMATS, SVG_FORMATS, type OutputFormat, type SvgFormat } from '~/catalog/tools'
import { MODEL_CHOICE_LABELS, MODEL_CHOICES } from '~/features/tools/models/model-choices'
import { useHydrated } from '~/ui/use-hydrated'
import { DEFAULT_CUSTOM_COLOUR, isHexColour, type BackgroundChoice } from './background-colour'
import { displayBlur, normaliseBlur } from './blur-wording'
import { CHECKERBOARD_STYLE } from './canvas-cutout'
import { DEFAULT_FORMAT, DEFAULT_SCALE, FORMAT_OPTIONS, SCALE_OPTIONS, svgBackgroundField } from './svg-options'

const PRESET_LABELS: Record<string, string> = { white: 'White', black: 'Black' }

/** The background remover's colour choice: transparent, a preset, or a custom hex colour. */
export function BackgroundOptions({
  choice,
  custom,
  onChoose,
  onCustomChange,
}: {
  choice: BackgroundChoice
  custom: string
  onChoose: (next: BackgroundChoice) => void
  onCustomChange: (value: string) => void
}) {
  const hydrated = useHydrated()
  return (
    <fieldset className="space-y-3">
      <legend className="text-sm font-semibold text-slate-900">Background</legend>
      <div className="flex flex-wrap gap-2">
        <ColourOption
          label="Transparent"
          value=""
          checked={choice.mode === 'transparent'}
          onSelect={() => onChoose({ mode: 'transparent' })}
          swatchStyle={CHECKERBOARD_STYLE}
        />
        {BACKGROUND_PRESETS.map((preset) => (
          <ColourOption
            key={preset}
            label={PRESET_LABELS[preset] ?? preset}
            value={preset}
            checked={choice.mode === 'preset' && choice.preset === preset}
            onSelect={() => onChoose({ mode: 'preset', preset })}
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
            onChange={() => onChoose({ mode: 'custom', value: custom })}
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
            onFocus={() => choice.mode !== 'custom' && onChoose({ mode: 'custom', value: custom })}
            onChange={(event) => {
              const value = event.currentTarget.value
              onCustomChange(value)
              onChoose({ mode: 'custom', value })
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
}

/** The remover's choice as state: transparent at first, the custom field starting at #ffffff. */
export function useBackgroundChoice() {
  const [choice, setChoice] = useState<BackgroundChoice>({ mode: 'transparent' })
  const [custom, setCustom] = useState(DEFAULT_CUSTOM_COLOUR)
  return { choice, setChoice, custom, setCustom }
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

/**
 * The background remover's model: a plain select (posts without JavaScript). Uncontrolled: the
 * form carries it to the run as it is; `chosen` is what a page post asked for (shown again after it).
 */
export function ModelOptions({ chosen }: { chosen?: string }) {
  return (
    <div className="space-y-1">
      <label htmlFor="remover-model" className="block text-sm font-semibold text-slate-900">
        Model
      </label>
      <select
        id="remover-model"
        name="model"
        defaultValue={chosen && (MODEL_CHOICES as readonly string[]).includes(chosen) ? chosen : 'auto'}
        aria-describedby="remover-model-hint"
        className="rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-600"
      >
        {MODEL_CHOICES.map((choice) => (
          <option key={choice} value={choice}>
            {MODEL_CHOICE_LABELS[choice]}
          </option>
        ))}
      </select>
      <p id="remover-model-hint" className="text-xs text-slate-600">
        A model this server has not installed is replaced by the best one it has; the result says which model ran.
      </p>
    </div>
  )
}

/** The face blurrer's radius (spec §9: 12..60 in steps of 2, shown from 8). */
export function BlurOptions({ blur, onBlur }: { blur: number; onBlur: (blur: number) => void }) {
  return (
    <div className="space-y-2">
      <div className="flex items-center justify-between text-sm">
        <label htmlFor="blur-intensity" className="font-semibold text-slate-900">
          Blur intensity
        </label>
        <output htmlFor="blur-intensity" className="tabular-nums text-slate-700" data-testid="blur-value">
          {displayBlur(blur)}px
        </output>
      </div>
      <input
        id="blur-intensity"
        type="range"
        name="blur"
        min={BLUR.min}
        max={BLUR.max}
        step={BLUR.step}
        value={blur}
        onChange={(event) => onBlur(normaliseBlur(event.currentTarget.valueAsNumber))}
        aria-valuetext={`${displayBlur(blur)} pixels`}
        className="w-full accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      />
      <div className="flex justify-between text-xs text-slate-600" aria-hidden="true">
        <span>{BLUR.min}px</span>
        <span>{BLUR.max}px</span>
      </div>
    </div>
  )
}

/** The image enhancer's denoise strength (the API's `denoise`; its own screen sends the default). */
export function DenoiseOptions({ denoise, onDenoise }: { denoise: number; onDenoise: (value: number) => void }) {
  return (
    <div className="space-y-2">
      <div className="flex items-center justify-between text-sm">
        <label htmlFor="denoise-strength" className="font-semibold text-slate-900">
          Denoise strength
        </label>
        <output htmlFor="denoise-strength" className="tabular-nums text-slate-700" data-testid="denoise-value">
          {denoise.toFixed(2)}
        </output>
      </div>
      <input
        id="denoise-strength"
        type="range"
        name="denoise"
        min={DENOISE.min}
        max={DENOISE.max}
        step={DENOISE.step}
        value={denoise}
        onChange={(event) => onDenoise(event.currentTarget.valueAsNumber)}
        className="w-full accent-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      />
      <div className="flex justify-between text-xs text-slate-600" aria-hidden="true">
        <span>{DENOISE.min} · keep grain</span>
        <span>{DENOISE.max} · smooth</span>
      </div>
    </div>
  )
}

/** The raster tools' file types as the screens name them (the remover's JPEG needs a backdrop). */
export const OUTPUT_FORMAT_LABELS: Record<OutputFormat, string> = {
  auto: 'Same kind as the upload',
  png: 'PNG (lossless)',
  jpg: 'JPEG',
  webp: 'WebP',
}

/**
 * The result's file type for the blurrer, the restorer and the enhancer: a plain select that posts
 * without JavaScript (and goes with the form's data to the API with it). `chosen`: what a page post asked for.
 */
export function FormatOptions({ chosen, id = 'output-format' }: { chosen?: string; id?: string }) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-semibold text-slate-900">
        File type
      </label>
      <select
        id={id}
        name="format"
        defaultValue={chosen && (OUTPUT_FORMATS as readonly string[]).includes(chosen) ? chosen : DEFAULT_OUTPUT_FORMAT}
        aria-describedby={`${id}-hint`}
        className="rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-600"
      >
        {OUTPUT_FORMATS.map((format) => (
          <option key={format} value={format}>
            {OUTPUT_FORMAT_LABELS[format]}
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} className="text-xs text-slate-600">
        {AUTO_FORMAT_RULE}
      </p>
    </div>
  )
}

export function asFormat(value: string | undefined): SvgFormat {
  return (SVG_FORMATS as readonly string[]).includes(value ?? '') ? (value as SvgFormat) : DEFAULT_FORMAT
}

/** The SVG converter's choices as state, starting from the fields a page post echoed back. */
export function useSvgChoices(fields?: Record<string, string>) {
  const [format, setFormat] = useState<SvgFormat>(asFormat(fields?.format))
  const [scale, setScale] = useState(fields?.scale ?? DEFAULT_SCALE)
  const [transparent, setTransparent] = useState(!fields?.background)
  const [background, setBackground] = useState(fields?.background || DEFAULT_BACKGROUND)
  return { format, setFormat, scale, setScale, transparent, setTransparent, background, setBackground, initialBackground: Boolean(fields?.background) }
}

export type SvgChoices = ReturnType<typeof useSvgChoices>

const selectClass =
  'mt-1 block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-indigo-600'

/** The SVG converter's format, scale and background. */
export function SvgOptions({ choices }: { choices: SvgChoices }) {
  const hydrated = useHydrated()
  const { format, scale, transparent, background } = choices
  const sentBackground = svgBackgroundField(transparent, background)
  return (
    <>
      <div className="grid gap-3 sm:grid-cols-2">
      <label className="block text-sm font-semibold text-slate-900">
        Export format
        <select name="format" value={format} onChange={(e) => choices.setFormat(asFormat(e.currentTarget.value))} className={selectClass}>
          {FORMAT_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <label className="block text-sm font-semibold text-slate-900">
        Scale
        <select name="scale" value={scale} onChange={(e) => choices.setScale(e.currentTarget.value)} className={selectClass}>
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
            onChange={(e) => choices.setTransparent(e.currentTarget.checked)}
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
              onChange={(e) => choices.setBackground(e.currentTarget.value)}
              autoComplete="off"
              spellCheck={false}
              className={`${selectClass} font-mono`}
              data-testid="svg-background"
            />
          </label>
        )}
        {/* What the form sends for the switch and the colour (the text field itself has no name). */}
        {sentBackground === null ? null : <input type="hidden" name="background" value={sentBackground} />}
      </div>
    ) : (
      // Without JavaScript the colour field cannot appear on demand: a checkbox sends the default
      // colour, and leaving it clear keeps the background transparent.
      <label className="flex items-start gap-2 text-sm text-slate-900">
        <input type="checkbox" name="background" value={DEFAULT_BACKGROUND} defaultChecked={choices.initialBackground} className="mt-0.5 h-4 w-4 accent-indigo-600" />
        <span>
          <span className="font-semibold">Solid {DEFAULT_BACKGROUND} background</span>
          <span className="block text-xs text-slate-500">Leave clear for a transparent background (alpha preserved for PNG/WebP only).</span>
        </span>
      </label>
    )}
    </>
  )
}
