// The five tools as the spec defines them (sections 2, 4, 5 and 9). Client-safe: the screens, the
// layout, the API and the engine all read their names, limits, steps and file names from here.
export type ToolSlug = 'background-remover' | 'face-restorer' | 'face-blurrer' | 'svg-converter' | 'image-enhancer'

export interface ProgressStep {
  percent: number
  message: string
}

export interface ToolDefinition {
  slug: ToolSlug
  /** The ledger's tool_slug (underscores are shown as spaces). */
  ledgerSlug: string
  name: string
  description: string
  path: `/tools/${ToolSlug}`
  apiPath: string
  /** The multipart field that carries the file. */
  fileField: 'image' | 'svg'
  maxMegabytes: number
  /** MIME types accepted, as sniffed from the bytes. */
  acceptedTypes: readonly string[]
  /** The accept attribute of the file input. */
  accept: string
  acceptedLabel: string
  defaultCost: number
  signInRequired: boolean
  downloadName: string
  steps: readonly ProgressStep[]
}

export const MEGABYTE = 1024 * 1024

/**
 * The face restorer without a usable GFPGAN (Standard detail: the detector and the super-resolution
 * model, no face-restoration model) does less than a real restoration, so by default it costs half the
 * restorer's price, rounded down (2 credits: 1). FACE_RESTORER_STANDARD_COST sets it outright.
 */
export function standardDetailCost(restorerCost: number): number {
  return Math.floor(restorerCost / 2)
}

export const TOOLS: Record<ToolSlug, ToolDefinition> = {
  'background-remover': {
    slug: 'background-remover',
    ledgerSlug: 'background_remover',
    name: 'Background remover',
    description: 'Cut out the subject and get a transparent PNG or a clean colour backdrop.',
    path: '/tools/background-remover',
    apiPath: '/api/remove-bg/',
    fileField: 'image',
    maxMegabytes: 12,
    acceptedTypes: ['image/png', 'image/jpeg', 'image/webp'],
    accept: 'image/png,image/jpeg,image/webp',
    acceptedLabel: 'PNG, JPG or WebP',
    defaultCost: 1,
    signInRequired: false,
    downloadName: 'background-removed.png',
    steps: [
      { percent: 12, message: 'Uploading image' },
      { percent: 70, message: 'Generating cutout' },
      { percent: 100, message: 'Cutout ready' },
    ],
  },
  'face-restorer': {
    slug: 'face-restorer',
    ledgerSlug: 'face_restorer',
    name: 'Face restorer',
    description: 'Recover detail in soft, small or compressed portraits.',
    path: '/tools/face-restorer',
    apiPath: '/api/face-retouch/restore/',
    fileField: 'image',
    maxMegabytes: 18,
    acceptedTypes: ['image/png', 'image/jpeg', 'image/tiff'],
    accept: 'image/png,image/jpeg,image/tiff',
    acceptedLabel: 'PNG, JPG or TIFF',
    defaultCost: 2,
    signInRequired: false,
    downloadName: 'face-restored.png',
    steps: [
      { percent: 12, message: 'Scanning facial landmarks' },
      { percent: 35, message: 'Rebuilding texture detail' },
      { percent: 68, message: 'Recovering light + contrast' },
      { percent: 85, message: 'Polishing final portrait' },
      { percent: 100, message: 'Portrait ready' },
    ],
  },
  'face-blurrer': {
    slug: 'face-blurrer',
    ledgerSlug: 'face_blurrer',
    name: 'Face blurrer',
    description: 'Find every face and blur it, with all metadata removed.',
    path: '/tools/face-blurrer',
    apiPath: '/api/face-blur/blur/',
    fileField: 'image',
    maxMegabytes: 15,
    acceptedTypes: ['image/png', 'image/jpeg', 'image/webp'],
    accept: 'image/png,image/jpeg,image/webp',
    acceptedLabel: 'PNG, JPG or WebP',
    defaultCost: 1,
    signInRequired: false,
    downloadName: 'face-blurred.png',
    steps: [
      { percent: 18, message: 'Uploading frame' },
      { percent: 35, message: 'Detecting faces' },
      { percent: 55, message: 'Rendering blur shields' },
      { percent: 100, message: 'Anonymization sealed' },
    ],
  },
  'svg-converter': {
    slug: 'svg-converter',
    ledgerSlug: 'svg_converter',
    name: 'SVG converter',
    description: 'Render vector files to PNG, JPEG or WebP at the scale you need.',
    path: '/tools/svg-converter',
    apiPath: '/api/svg2image/convert/',
    fileField: 'svg',
    maxMegabytes: 20,
    acceptedTypes: ['image/svg+xml'],
    accept: 'image/svg+xml,.svg',
    acceptedLabel: 'SVG',
    defaultCost: 1,
    signInRequired: true,
    downloadName: 'converted.png',
    steps: [
      { percent: 18, message: 'Uploading vector data' },
      { percent: 62, message: 'Rendering raster output' },
      { percent: 100, message: 'Preparing download' },
    ],
  },
  'image-enhancer': {
    slug: 'image-enhancer',
    ledgerSlug: 'image_enhancer',
    name: 'Image enhancer',
    description: 'Upscale, sharpen and clean up the whole frame.',
    path: '/tools/image-enhancer',
    apiPath: '/api/image-scaler/scale/',
    fileField: 'image',
    maxMegabytes: 20,
    acceptedTypes: ['image/png', 'image/jpeg', 'image/tiff'],
    accept: 'image/png,image/jpeg,image/tiff',
    acceptedLabel: 'PNG, JPG or TIFF',
    defaultCost: 2,
    signInRequired: false,
    downloadName: 'enhanced.png',
    steps: [
      { percent: 15, message: 'Loading the enhancer' },
      { percent: 40, message: 'Enhancing the entire frame' },
      { percent: 70, message: 'Encoding final image' },
      { percent: 100, message: 'Enhancement ready' },
    ],
  },
}

export const TOOL_LIST: readonly ToolDefinition[] = [
  TOOLS['background-remover'],
  TOOLS['face-restorer'],
  TOOLS['image-enhancer'],
  TOOLS['face-blurrer'],
  TOOLS['svg-converter'],
]

/** Own keys only: `in` would take "valueOf" or "constructor" from Object.prototype for a tool. */
export function isToolSlug(value: string): value is ToolSlug {
  return Object.hasOwn(TOOLS, value)
}

/** Spec §9. */
export const BLUR = { min: 12, max: 60, step: 2, default: 32, displayMin: 8 } as const
/** The image enhancer's denoise strength: the API takes 0 to 1; absent, the enhancer uses 0.5. */
export const DENOISE = { min: 0, max: 1, step: 0.1, default: 0.5 } as const
export const SVG_FORMATS = ['png', 'jpeg', 'webp'] as const
/**
 * The raster tools' `format` (decision 173): `auto`, the default, follows the upload (an opaque
 * result in the upload's family, a result with alpha as PNG); the others are that type whatever the input.
 */
export const OUTPUT_FORMATS = ['auto', 'png', 'jpg', 'webp'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]
export const DEFAULT_OUTPUT_FORMAT: OutputFormat = 'auto'
/** The default rule in a sentence, for the screens and the API documentation. */
export const AUTO_FORMAT_RULE =
  'By default a result follows the upload: an opaque result of a JPEG or WebP comes back as the same type at a quality that keeps its look, anything with transparency (or from a PNG or TIFF) as PNG.'
export type SvgFormat = (typeof SVG_FORMATS)[number]
export const SVG_SCALES = ['0.75', '1', '2', '3'] as const
export const DEFAULT_BACKGROUND = '#ffffff'
export const BACKGROUND_PRESETS = [
  'white',
  'black',
  '#111827',
  '#1e293b',
  '#f1f5f9',
  '#f472b6',
  '#6366f1',
  '#10b981',
  '#f59e0b',
] as const
/** A custom background colour applies only as 3- or 6-digit hex with a leading #. */
export const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i

/** A coloured cutout's file name: a hex colour names itself (cutout-f472b6.png), a named preset is cutout.png. */
export function cutoutFilename(colour: string): string {
  return colour.startsWith('#') ? `cutout-${colour.slice(1).toLowerCase()}.png` : 'cutout.png'
}
