// What a tool run shares between the request side (jobs/submit.server.ts) and the run side until
// the runners branch gives each tool its own module: option parsing, names, the run itself, and the
// wording of failures.
import { z } from 'zod'
import { logger } from '~/utils/logger.server'
import { BACKGROUND_PRESETS, BLUR, cutoutFilename, HEX_COLOUR, SVG_FORMATS, SVG_SCALES, TOOLS, type SvgFormat, type ToolSlug } from './catalog'
import { ToolError } from './errors.server'
import type { RgbaImage } from './image'
import type { Delivered } from './runners/types'
import { modelEntry } from './models/manifest'
import { isModelInstalled, ModelMissingError, requiredModelsFor } from './models/registry.server'
import { checkOutputSize, convertSvg, parseBackground } from './svg-converter.server'
import { sanitizeSvg, type SanitizedSvg } from './svg-sanitize.server'
import {
  decodeToRgba,
  FIRST_FRAME_NOTE,
  readImageHeader,
  sniffImageType,
  type UploadedFile,
} from './upload.server'
import { SVG_SIGN_IN_MESSAGE } from './ui/tool-messages'

// One wording for the page and the API (the tests import it from here).
export { SVG_SIGN_IN_MESSAGE }
export const INVALID_TOKEN_MESSAGE = 'Your session has ended or the token is not valid. Sign in again.'

/** What the spec's screens show when a run fails without a more precise reason. */
export const FAILURE_MESSAGES: Record<ToolSlug, string> = {
  'background-remover': 'Unable to process image.',
  'face-restorer': 'Unable to restore portrait.',
  'face-blurrer': 'Unable to blur faces.',
  'svg-converter': 'Unable to convert SVG.',
  'image-enhancer': 'Unable to enhance image.',
}

/** Generous for a person, tight for a script: the queue bounds the CPU, this bounds one client. */
export const TOOL_RUN_RATE = { name: 'tool-runs', points: 120, durationSeconds: 60 }

// ---- options -----------------------------------------------------------------------------------

export const OPTION_FIELDS: Record<ToolSlug, readonly string[]> = {
  // A form without JavaScript sends background=custom and the colour typed in background_custom.
  'background-remover': ['background', 'background_custom'],
  'face-restorer': [],
  'face-blurrer': ['blur'],
  'svg-converter': ['format', 'scale', 'background'],
  'image-enhancer': ['denoise'],
}

const BLUR_MESSAGE = `blur must be a number from ${BLUR.min} to ${BLUR.max} in steps of ${BLUR.step}.`
const blurSchema = z
  .string({ error: BLUR_MESSAGE })
  .trim()
  .regex(/^\d+(\.0+)?$/, BLUR_MESSAGE)
  .transform(Number)
  .refine((n) => n >= BLUR.min && n <= BLUR.max && (n - BLUR.min) % BLUR.step === 0, BLUR_MESSAGE)

const BACKGROUND_MESSAGE = `background must be a colour as #rgb or #rrggbb, or one of ${BACKGROUND_PRESETS.filter((p) => !p.startsWith('#')).join(', ')}.`
const cutoutBackgroundSchema = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => v === '' || v === 'transparent' || HEX_COLOUR.test(v) || (BACKGROUND_PRESETS as readonly string[]).includes(v), BACKGROUND_MESSAGE)
  .transform((v) => (v === '' || v === 'transparent' ? undefined : v))
  .optional()

const FORMAT_MESSAGE = `format must be one of ${SVG_FORMATS.join(', ')}.`
const SCALE_MESSAGE = `scale must be one of ${SVG_SCALES.join(', ')}.`
const svgSchema = z.object({
  format: z.enum(SVG_FORMATS, { error: FORMAT_MESSAGE }),
  scale: z
    .string({ error: SCALE_MESSAGE })
    .trim()
    .refine((v) => SVG_SCALES.some((s) => Number(s) === Number(v)) && v !== '', SCALE_MESSAGE)
    .transform(Number),
  background: z.string().optional(),
})

export const DENOISE_MESSAGE = 'denoise must be a number from 0 to 1.'
const denoiseSchema = z
  .string()
  .trim()
  .regex(/^(\d+(\.\d*)?|\.\d+)$/, DENOISE_MESSAGE)
  .transform(Number)
  .refine((n) => n >= 0 && n <= 1, DENOISE_MESSAGE)
  .optional()

export type Settings =
  | { tool: 'background-remover'; background?: string }
  | { tool: 'face-blurrer'; blur: number }
  | { tool: 'svg-converter'; format: SvgFormat; scale: number; background?: string }
  | { tool: 'face-restorer' }
  | { tool: 'image-enhancer'; denoise?: number }

function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'The options are not valid.'
}

export async function readSettings(tool: ToolSlug, fields: Record<string, string>): Promise<Settings> {
  switch (tool) {
    case 'face-blurrer': {
      const blur = blurSchema.safeParse(fields.blur)
      if (!blur.success) throw new ToolError(400, firstIssue(blur.error))
      return { tool, blur: blur.data }
    }
    case 'background-remover': {
      const chosen = fields.background?.trim() === 'custom' ? fields.background_custom : fields.background
      const background = cutoutBackgroundSchema.safeParse(chosen)
      if (!background.success) throw new ToolError(400, firstIssue(background.error))
      return { tool, background: background.data }
    }
    case 'svg-converter': {
      const parsed = svgSchema.safeParse({ ...fields, format: fields.format?.trim().toLowerCase() })
      if (!parsed.success) throw new ToolError(400, firstIssue(parsed.error))
      const background = parsed.data.background === undefined ? undefined : await parseBackground(parsed.data.background)
      return { tool, format: parsed.data.format, scale: parsed.data.scale, background }
    }
    case 'image-enhancer': {
      // Absent means the enhancer's default strength; the spec's screen sends none.
      const denoise = denoiseSchema.safeParse(fields.denoise)
      if (!denoise.success) throw new ToolError(400, DENOISE_MESSAGE)
      return { tool, denoise: denoise.data }
    }
    default:
      return { tool }
  }
}

// ---- names -------------------------------------------------------------------------------------

/** The client's file name without folders, extension or characters that break a header. */
export function baseName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? ''
  const stem = last.replace(/\.[^.]*$/, '')
  return stem
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f"*:<>?|]/g, '')
    .trim()
    .slice(0, 100)
}

/** `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` (RFC 6266). */
export function contentDisposition(filename: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

export function outputName(settings: Settings, original: string): string {
  const base = baseName(original)
  switch (settings.tool) {
    case 'svg-converter':
      return `${base || 'converted'}.${settings.format}`
    case 'image-enhancer':
      return base ? `${base}-enhanced.png` : TOOLS['image-enhancer'].downloadName
    case 'background-remover':
      return settings.background ? cutoutFilename(settings.background) : TOOLS['background-remover'].downloadName
    default:
      return TOOLS[settings.tool].downloadName
  }
}

// ---- running -----------------------------------------------------------------------------------

/** An upload that passed every check that does not need its pixels decoded. */
type Prepared =
  | { kind: 'image'; bytes: Buffer; width: number; height: number; notes: string[] }
  | { kind: 'svg'; svg: SanitizedSvg; width: number; height: number; notes: string[] }


export async function prepare(tool: ToolSlug, file: UploadedFile): Promise<Prepared> {
  if (tool === 'svg-converter') {
    const svg = await sanitizeSvg(file.bytes)
    return { kind: 'svg', svg, width: Math.round(svg.width), height: Math.round(svg.height), notes: [] }
  }
  await sniffImageType(file.bytes, tool)
  const header = await readImageHeader(file.bytes)
  return { kind: 'image', bytes: file.bytes, width: header.width, height: header.height, notes: header.pages > 1 ? [FIRST_FRAME_NOTE] : [] }
}

// The inference modules load onnxruntime; importing them only when a run needs them keeps the SVG
// converter and the pages free of that start-up cost.
export async function execute(settings: Settings, prepared: Prepared, image: RgbaImage | null, signal: AbortSignal): Promise<Delivered> {
  if (prepared.kind === 'svg') {
    if (settings.tool !== 'svg-converter') throw new Error('an SVG reached a raster tool')
    const out = await convertSvg(prepared.svg, settings, signal)
    return { bytes: out.bytes, contentType: out.contentType, modelMs: out.renderMs }
  }
  if (!image) throw new Error('a raster tool ran without its decoded image')
  switch (settings.tool) {
    case 'background-remover': {
      const { removeBackground } = await import('./background-remover.server')
      const out = await removeBackground(image, { background: settings.background, signal })
      return { bytes: out.bytes, contentType: out.contentType, modelMs: out.modelMs }
    }
    case 'face-blurrer': {
      const { blurFaces } = await import('./face-blurrer.server')
      const out = await blurFaces(image, { blur: settings.blur, signal })
      return { bytes: out.bytes, contentType: out.contentType, modelMs: out.modelMs, facesFound: out.facesFound }
    }
    case 'image-enhancer': {
      const { enhanceImage } = await import('./image-enhancer.server')
      const out = await enhanceImage(image, { signal, denoise: settings.denoise })
      return { bytes: out.bytes, contentType: out.contentType, modelMs: out.modelMs, note: out.note }
    }
    case 'face-restorer': {
      const { restoreFaces } = await import('./face-restorer.server')
      const out = await restoreFaces(image, { signal })
      return {
        bytes: out.bytes,
        contentType: out.contentType,
        modelMs: out.modelMs,
        facesFound: out.facesFound,
        gfpganAvailable: out.gfpganAvailable,
      }
    }
    default:
      throw new Error(`no runner for ${settings.tool}`)
  }
}

export function missingModel(tool: ToolSlug): ModelMissingError | null {
  for (const id of requiredModelsFor(tool)) {
    if (!isModelInstalled(id)) return new ModelMissingError(id, modelEntry(id).file)
  }
  return null
}

export function gfpganAvailable(): boolean {
  try {
    return isModelInstalled('gfpgan')
  } catch {
    return false
  }
}

export function asToolError(error: unknown, tool: ToolSlug): ToolError {
  if (error instanceof ToolError) return error
  if (error instanceof ModelMissingError) return new ToolError(503, error.message, { outcome: 'failed' })
  logger.error({ err: error, tool }, 'tool run failed')
  return new ToolError(500, FAILURE_MESSAGES[tool], { outcome: 'failed', cause: error })
}

