// Background remover: a transparent cutout, or the cutout flattened on a colour (a preset or #hex)
// or a background image; cropped to the subject, scaled and placed, shadowed, as the alpha mask
// alone, as PNG, JPEG, WebP or remove.bg's zip (cutout-output.server.ts composes it).
import { z } from 'zod'
import { BACKGROUND_PRESETS, cutoutFilename, HEX_COLOUR, TOOLS } from '../../../catalog/tools'
import type { CutoutOutputOptions, Length } from '../cutout-output.server'
import { badRequest } from '../../jobs/errors.server'
import { MODEL_CHOICES, type ModelChoice } from '../models/model-choices'
import { OUTPUT_FORMATS, type ChosenFormat } from '../output-format.server'
import { parseField } from './options.server'
import { inspectRaster, runRaster } from './raster.server'
import type { CutoutLayout, ToolRunner } from '../../jobs/runner'
import type { RgbaImage } from '../image'
import type { MatteMaterial } from '../background-remover.server'
import { correctionHooks } from '../correction-hooks.server'

export interface BackgroundRemoverOptions {
  /** A preset or a #rgb/#rrggbb colour to flatten on; absent for a transparent cutout. */
  background?: string
  /** Which background model (models/segmenters.server.ts); absent means auto. */
  model?: ModelChoice
  /** A background image was sent (its bytes travel with the upload as the job's second file). */
  backgroundImage?: true
  channels?: 'alpha'
  shadow?: true
  crop?: { margin: Length }
  /** 0.1..1 of the output. */
  scale?: number
  position?: { x: number; y: number }
  hardEdges?: true
  maxMegapixels?: number
  /** Absent: `auto` (over a backdrop the upload's family, a transparent cutout PNG; decision 173). */
  format?: ChosenFormat | 'zip'
}

export const MODEL_CHOICE_MESSAGE = `model must be one of ${MODEL_CHOICES.join(', ')}.`
const modelSchema = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => v === '' || (MODEL_CHOICES as readonly string[]).includes(v), MODEL_CHOICE_MESSAGE)
  .transform((v) => (v === '' || v === 'auto' ? undefined : (v as ModelChoice)))
  .optional()

const BACKGROUND_MESSAGE = `background must be a colour as #rgb or #rrggbb, or one of ${BACKGROUND_PRESETS.filter((p) => !p.startsWith('#')).join(', ')}.`
const backgroundSchema = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => v === '' || v === 'transparent' || HEX_COLOUR.test(v) || (BACKGROUND_PRESETS as readonly string[]).includes(v), BACKGROUND_MESSAGE)
  .transform((v) => (v === '' || v === 'transparent' ? undefined : v))
  .optional()

export const REMOVER_FORMAT_MESSAGE = 'format must be png, jpg, webp, auto or zip.'
const formatSchema = z
  .string()
  .trim()
  .toLowerCase()
  .transform((v) => (v === 'jpeg' ? 'jpg' : v))
  .refine((v) => v === '' || v === 'zip' || (OUTPUT_FORMATS as readonly string[]).includes(v), REMOVER_FORMAT_MESSAGE)
  .optional()

const flag = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['', 'true', 'false', '1', '0', 'on', 'off', 'yes', 'no'].includes(v), `${name} must be true or false.`)
    .transform((v) => ['true', '1', 'on', 'yes'].includes(v))
    .optional()

export const CROP_MARGIN_MESSAGE = 'crop_margin must be pixels (30 or 30px, at most 500) or a percentage of the subject (10%, at most 50%).'
const cropMarginSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^\d+(\.\d+)?(px|%)?$/, CROP_MARGIN_MESSAGE)
  .transform((v): Length => ({ value: Number.parseFloat(v), unit: v.endsWith('%') ? '%' : 'px' }))
  .refine((m) => (m.unit === '%' ? m.value <= 50 : m.value <= 500), CROP_MARGIN_MESSAGE)
  .optional()

export const SCALE_MESSAGE = 'scale must be a percentage from 10% to 100%, or original.'
const scaleSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(original|\d+(\.\d+)?%)$/, SCALE_MESSAGE)
  .transform((v) => (v === 'original' ? undefined : Number.parseFloat(v) / 100))
  .refine((v) => v === undefined || (v >= 0.1 && v <= 1), SCALE_MESSAGE)
  .optional()

export const POSITION_MESSAGE = 'position must be original, center, or a horizontal and an optional vertical percentage ("50% 100%").'
const positionSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(original|center|\d+(\.\d+)?%(\s+\d+(\.\d+)?%)?)$/, POSITION_MESSAGE)
  .transform((v) => {
    if (v === 'original') return undefined
    if (v === 'center') return { x: 0.5, y: 0.5 }
    const [x, y = x] = v.split(/\s+/).map((p) => Number.parseFloat(p) / 100)
    return { x: x!, y: y! }
  })
  .refine((p) => p === undefined || (p.x <= 1 && p.y <= 1), POSITION_MESSAGE)
  .optional()

export const CHANNELS_MESSAGE = 'channels must be rgba or alpha.'
const channelsSchema = z.string().trim().toLowerCase().refine((v) => ['', 'rgba', 'alpha'].includes(v), CHANNELS_MESSAGE).optional()

export const MAX_MEGAPIXELS_MESSAGE = 'max_megapixels must be a number from 0.01 to 40.'
const maxMegapixelsSchema = z
  .string()
  .trim()
  .regex(/^(\d+(\.\d*)?|\.\d+)$/, MAX_MEGAPIXELS_MESSAGE)
  .transform(Number)
  .refine((n) => n >= 0.01 && n <= 40, MAX_MEGAPIXELS_MESSAGE)
  .optional()

export const ALPHA_ONLY_MESSAGE = 'channels=alpha answers the mask alone (a grayscale PNG): it takes no background, shadow or format other than png.'
export const CROP_AND_PLACE_MESSAGE = 'crop cannot be combined with scale or position: crop fits the output to the subject.'
export const JPEG_NEEDS_BACKGROUND_MESSAGE = 'JPEG has no transparency: choose a background colour or image, or ask for png or webp.'
export const TWO_BACKGROUNDS_MESSAGE = 'Send a background colour or a background image, not both.'

/** A form's ticked checkbox says `on`; an API client says true. */
function isOn(value: boolean | undefined): value is true {
  return value === true
}

/** The option fields → options; every refusal names the field and what it takes. */
export function parseRemoverFields(sent: Record<string, string>): BackgroundRemoverOptions {
  // A form sends its empty inputs (no margin typed): an empty field is a field not sent.
  const fields = Object.fromEntries(Object.entries(sent).filter(([, value]) => value.trim() !== ''))
  // A form without JavaScript sends background=custom and the colour typed in background_custom.
  const chosen = fields.background?.trim() === 'custom' ? fields.background_custom : fields.background
  const background = parseField(backgroundSchema, chosen)
  const formatSent = parseField(formatSchema, fields.format)
  const format = formatSent && formatSent !== 'auto' ? (formatSent as BackgroundRemoverOptions['format']) : undefined
  const channels = parseField(channelsSchema, fields.channels)
  const shadow = parseField(flag('shadow'), fields.shadow)
  const crop = parseField(flag('crop'), fields.crop)
  const margin = parseField(cropMarginSchema, fields.crop_margin)
  const scale = parseField(scaleSchema, fields.scale)
  const position = parseField(positionSchema, fields.position)
  const semitransparency = parseField(flag('semitransparency'), fields.semitransparency)
  const maxMegapixels = parseField(maxMegapixelsSchema, fields.max_megapixels)
  const model = parseField(modelSchema, fields.model)
  const options: BackgroundRemoverOptions = {
    ...(background ? { background } : {}),
    ...(model ? { model } : {}),
    ...(channels === 'alpha' ? { channels: 'alpha' as const } : {}),
    ...(isOn(shadow) ? { shadow: true as const } : {}),
    ...(isOn(crop) ? { crop: { margin: margin ?? { value: 0, unit: 'px' as const } } } : {}),
    ...(scale !== undefined ? { scale } : {}),
    ...(position !== undefined ? { position } : {}),
    // Absent means semi-transparent edges, as remove.bg's default.
    ...(semitransparency === false ? { hardEdges: true as const } : {}),
    ...(maxMegapixels !== undefined ? { maxMegapixels } : {}),
    ...(format ? { format } : {}),
  }
  if (options.crop && (options.scale !== undefined || options.position !== undefined)) throw badRequest(CROP_AND_PLACE_MESSAGE)
  if (options.channels === 'alpha' && (options.background || options.shadow || (options.format && options.format !== 'png'))) {
    throw badRequest(ALPHA_ONLY_MESSAGE)
  }
  return options
}

/** The combinations only known once the background image is attached. */
export function checkRemoverCombination(options: BackgroundRemoverOptions): void {
  if (options.background && options.backgroundImage) throw badRequest(TWO_BACKGROUNDS_MESSAGE)
  if (options.channels === 'alpha' && options.backgroundImage) throw badRequest(ALPHA_ONLY_MESSAGE)
  if (options.format === 'jpg' && !options.background && !options.backgroundImage) throw badRequest(JPEG_NEEDS_BACKGROUND_MESSAGE)
}

/** The options as the composition reads them. */
export function cutoutOutputOptions(options: BackgroundRemoverOptions, backgroundImage: Buffer | null): CutoutOutputOptions {
  return {
    channels: options.channels ?? 'rgba',
    background: options.background,
    backgroundImage: options.backgroundImage ? backgroundImage : null,
    shadow: options.shadow ?? false,
    crop: options.crop,
    scale: options.scale,
    position: options.position,
    hardEdges: options.hardEdges ?? false,
    maxPixels: options.maxMegapixels ? Math.round(options.maxMegapixels * 1_000_000) : undefined,
    format: options.format,
  }
}

export const REMOVER_OPTION_FIELDS = [
  'background',
  'background_custom',
  'model',
  'format',
  'channels',
  'shadow',
  'crop',
  'crop_margin',
  'scale',
  'position',
  'semitransparency',
  'max_megapixels',
] as const

export const NO_SUBJECT_REFUND = 'Refund: no subject found'

/**
 * Only a plain transparent or colour cutout (by whichever model), in the default format or PNG, is
 * the remover's own streamed PNG (converted after, for a colour, by the default rule); anything else is composed.
 */
function needsComposition(options: BackgroundRemoverOptions): boolean {
  return Object.entries(options).some(([key, value]) => key !== 'background' && key !== 'model' && !(key === 'format' && value === 'png'))
}

/**
 * A plain cutout's PNG in its final type: a transparent one stays PNG; one on a colour is opaque and
 * follows the default rule (the upload's family) unless PNG was asked for.
 */
async function plainCutoutInFormat(png: Buffer, options: BackgroundRemoverOptions, upload: Buffer): Promise<{ bytes: Buffer; contentType: string }> {
  if (!options.background) return { bytes: png, contentType: 'image/png' }
  const { convertResult } = await import('../output-format.server')
  const out = await convertResult(png, options.format === 'png' ? 'png' : 'auto', upload)
  return { bytes: out.bytes, contentType: out.contentType }
}

export interface RenderedCutout {
  bytes: Buffer
  contentType: string
  layout: CutoutLayout | null
  note: string | null
}

/**
 * The remover's output from the picture's colours and a refined matte, for every option: the one
 * rendering of a run's composed output and of every correction (decision 157), so that a neutral
 * correction gives the run's bytes back. A plain cutout's run streams the same encoders
 * (encodeCutoutPng, flattenOnColour) while its matte is refined.
 */
export async function renderCutout(
  options: BackgroundRemoverOptions,
  colours: RgbaImage,
  alpha: Uint8Array,
  upload: Buffer,
  backgroundImage: Buffer | null,
): Promise<RenderedCutout> {
  if (!needsComposition(options)) {
    const { encodeCutoutPng, flattenOnColour } = await import('../background-remover.server')
    const { width, height } = colours
    const png = options.background
      ? await flattenOnColour(Buffer.from(colours.data), alpha, width, height, options.background)
      : await encodeCutoutPng(colours.data, alpha, width, height)
    return { ...(await plainCutoutInFormat(png, options, upload)), layout: null, note: null }
  }
  const { composeCutout } = await import('../cutout-output.server')
  const out = await composeCutout(colours, alpha, upload, cutoutOutputOptions(options, backgroundImage))
  return { bytes: out.bytes, contentType: out.contentType, layout: { width: out.width, height: out.height, foreground: out.foreground }, note: out.note }
}

export const backgroundRemoverRunner: ToolRunner<BackgroundRemoverOptions> = {
  slug: 'background-remover',
  optionFields: REMOVER_OPTION_FIELDS,
  secondFile: { field: 'background_image', label: 'background image', attach: (options) => ({ ...options, backgroundImage: true }) },
  parseOptions: async (fields) => parseRemoverFields(fields),
  inspect: (bytes, options) => {
    checkRemoverCombination(options)
    return inspectRaster('background-remover', bytes)
  },
  run: (input) =>
    runRaster(
      'background-remover',
      input,
      {
        decoded: { from: 0, to: 0.05, step: 1 },
        matte: { from: 0.05, to: 0.6, step: 1 },
        refined: { from: 0.6, to: 0.85, step: 1 },
        encoded: { from: 0.85, to: 1, step: 1 },
      },
      async (image, progress) => {
        // Loaded here, not at the top: onnxruntime stays out of processes that never run a model.
        const { removeBackground } = await import('../background-remover.server')
        const { options, signal } = input
        const { model } = options
        const { keepCutout } = correctionHooks()
        const backgroundImage = options.backgroundImage ? (input.secondBytes ?? null) : null
        const keep = (material: MatteMaterial) => keepCutout({ upload: input.bytes, backgroundImage, options, image, ...material })
        if (!needsComposition(options)) {
          const out = await removeBackground(image, { background: options.background, model, signal, progress })
          const edit = await keep(out.material)
          const final = await plainCutoutInFormat(out.bytes, options, input.bytes)
          return { ...final, modelMs: out.modelMs, model: out.model, note: out.note, edit }
        }
        const matte = await removeBackground(image, { model, signal, progress, matteOnly: true })
        const out = await renderCutout(options, { ...image, data: matte.colours }, matte.alpha, input.bytes, backgroundImage)
        progress('encoded', 1)
        const note = [matte.note, out.note].filter(Boolean).join(' ') || null
        const edit = await keep(matte)
        return { bytes: out.bytes, contentType: out.contentType, modelMs: matte.modelMs, model: matte.model, layout: out.layout, note, edit }
      },
      { encodesFormat: true },
    ),
  // A composed cutout with no subject in it delivered nothing worth a credit.
  refundReason: (delivered) => (delivered.layout && !delivered.layout.foreground ? NO_SUBJECT_REFUND : null),
  // The model `auto` takes here (a run's own choice is in what it delivered).
  model: async () => (await import('../background-remover.server')).activeSegmenter().id,
  outputName: (options) => {
    if (options.channels === 'alpha') return 'mask.png'
    return options.background ? cutoutFilename(options.background) : TOOLS['background-remover'].downloadName
  },
}
