// Each tool's API fields and answer, built from the catalog's names, limits and choices, for the
// /api documentation page and the OpenAPI document alike. Client-safe.
import { MODEL_CHOICES } from '~/features/tools/models/model-choices'
import { MODEL_HEADER } from '~/features/jobs/view'
import { AUTO_FORMAT_RULE, BACKGROUND_PRESETS, BLUR, DENOISE, OUTPUT_FORMATS, SVG_FORMATS, SVG_SCALES, TOOL_LIST, type ToolDefinition, type ToolSlug } from '~/catalog/tools'

export interface ToolField {
  name: string
  required: boolean
  /** The JSON Schema of the multipart field's value. */
  schema: Record<string, unknown>
  description: string
}

export interface ToolApi {
  tool: ToolDefinition
  fields: ToolField[]
  /** What a successful answer is. */
  answer: string
  /** The media types a successful answer may have. */
  answerTypes: string[]
  /** Headers of a successful answer that only this tool sends (name → description). */
  answerHeaders?: Record<string, string>
}

const NAMED_BACKGROUNDS = BACKGROUND_PRESETS.filter((p) => !p.startsWith('#'))

function fileField(tool: ToolDefinition): ToolField {
  return {
    name: tool.fileField,
    required: true,
    schema: { type: 'string', contentMediaType: 'application/octet-stream' },
    description: `The file: ${tool.acceptedLabel}, up to ${tool.maxMegabytes} MB.`,
  }
}

/** `format`, which every raster tool takes (docs/decisions/095 and 173). */
const FORMAT_FIELD: ToolField = {
  name: 'format',
  required: false,
  schema: { type: 'string', enum: [...OUTPUT_FORMATS], default: 'auto' },
  description:
    `Output file type: auto (the default), png, jpg (jpeg) or webp. ${AUTO_FORMAT_RULE} ` +
    'A transparent result asked for as jpg is put on white and X-Facet-Note says so. Content-Type and the download name’s extension follow the type.',
}

/** The raster tools' answer types (what `format` can make). */
const RASTER_TYPES = ['image/png', 'image/jpeg', 'image/webp']

const flag = (name: string, description: string): ToolField => ({ name, required: false, schema: { type: 'string', enum: ['true', 'false'] }, description })

const OPTIONS: Record<ToolSlug, { fields: ToolField[]; answer: string; answerTypes: string[]; answerHeaders?: Record<string, string> }> = {
  'background-remover': {
    fields: [
      {
        name: 'background',
        required: false,
        schema: { type: 'string' },
        description: `Optional backdrop: #rgb or #rrggbb, or ${NAMED_BACKGROUNDS.join(' or ')}. Without it the cutout is transparent.`,
      },
      {
        name: 'model',
        required: false,
        schema: { enum: [...MODEL_CHOICES] },
        description:
          'Which model cuts out (default auto): auto takes the best installed, fast U²-Netp, quality BiRefNet-lite or ISNet, portrait MODNet. ' +
          `A model not installed here is replaced by the best one that is, with X-Facet-Note saying so; GET /api/models/ lists what is installed.`,
      },
      {
        name: 'background_image',
        required: false,
        schema: { type: 'string', contentMediaType: 'application/octet-stream' },
        description: 'Optional second file, a backdrop image (PNG, JPG or WebP, same size and pixel limits as image), scaled to cover the output. Not with background.',
      },
      {
        name: 'format',
        required: false,
        schema: { type: 'string', enum: [...OUTPUT_FORMATS, 'zip'], default: 'auto' },
        description:
          'auto (the default: a transparent cutout is a PNG; over a background colour or image the result is opaque and follows the upload, a JPEG as a JPEG), png, jpg (needs background or background_image), webp (keeps transparency), or zip (color.jpg + alpha.png, as remove.bg).',
      },
      { name: 'channels', required: false, schema: { type: 'string', enum: ['rgba', 'alpha'] }, description: 'alpha answers the mask alone, a grayscale PNG (no background, shadow or other format).' },
      flag('crop', 'true crops the output to the subject (plus crop_margin).'),
      {
        name: 'crop_margin',
        required: false,
        schema: { type: 'string', pattern: '^\\d+(\\.\\d+)?(px|%)?$' },
        description: 'Margin around the cropped subject on every side: pixels (30 or 30px, at most 500) or a percentage of the subject\'s longer side (10%, at most 50%). Past the photo\'s edge it is transparent.',
      },
      { name: 'scale', required: false, schema: { type: 'string' }, description: 'The subject scaled to fit 10% to 100% of the output (or original). Not with crop.' },
      {
        name: 'position',
        required: false,
        schema: { type: 'string' },
        description: 'Where the subject goes: original, center, or "x% y%" (0% 0% top left, 100% 100% bottom right). Not with crop.',
      },
      flag('shadow', 'true casts a soft drop shadow under the subject, from its own outline.'),
      flag('semitransparency', 'false makes every edge pixel fully opaque or fully transparent (default true).'),
      {
        name: 'max_megapixels',
        required: false,
        schema: { type: 'string' },
        description: 'The output is downscaled (never enlarged) to at most this many megapixels (0.01 to 40).',
      },
    ],
    answer: `An RGBA PNG at the original size by default (over a backdrop, the upload's type); the options above change its layout, backdrop and type. ${MODEL_HEADER} names the model that made it.`,
    answerTypes: [...RASTER_TYPES, 'application/zip'],
    answerHeaders: {
      [MODEL_HEADER]: 'The id of the model that made the cutout (as GET /api/models/ lists it).',
      'X-Facet-Note': 'Present when the model asked for is not installed here and another one was used, or when the composition changed what was asked (no subject found, a transparent result asked for as jpg).',
    },
  },
  'face-restorer': {
    fields: [FORMAT_FIELD],
    answer: 'JSON {restored_url, gfpgan_available, filename}: restored_url is a signed link that opens for anyone holding it for one hour, and for you (your key, token or cookie) for 24 hours (GET /api/results/<id>); filename’s extension says its type.',
    answerTypes: ['application/json'],
  },
  'image-enhancer': {
    fields: [
      {
        name: 'denoise',
        required: false,
        schema: { type: 'string', pattern: '^(\\d+(\\.\\d*)?|\\.\\d+)$' },
        description: `Denoise strength from ${DENOISE.min} to ${DENOISE.max} (default ${DENOISE.default}).`,
      },
      FORMAT_FIELD,
    ],
    answer: 'The image up to 4× larger within a 16 MP output, in the upload’s type by default (a JPEG as a JPEG) or the format asked for.',
    answerTypes: RASTER_TYPES,
  },
  'face-blurrer': {
    fields: [
      {
        name: 'blur',
        required: true,
        schema: { type: 'string', pattern: '^\\d+$' },
        description: `Blur radius from ${BLUR.min} to ${BLUR.max} in steps of ${BLUR.step} (the screens start at ${BLUR.default}).`,
      },
      FORMAT_FIELD,
    ],
    answer: 'The image with the faces blurred, in the upload’s type by default (a JPEG as a JPEG) or the format asked for; X-Faces-Found says how many (no face: not charged).',
    answerTypes: RASTER_TYPES,
  },
  'svg-converter': {
    fields: [
      { name: 'format', required: true, schema: { type: 'string', enum: [...SVG_FORMATS] }, description: `Output format: ${SVG_FORMATS.join(', ')}.` },
      { name: 'scale', required: true, schema: { type: 'string', enum: [...SVG_SCALES] }, description: `Scale: ${SVG_SCALES.join(', ')}.` },
      { name: 'background', required: false, schema: { type: 'string' }, description: 'Optional background colour; without it PNG and WebP stay transparent.' },
    ],
    answer: 'The image in the chosen format. Signed-in callers only.',
    answerTypes: SVG_FORMATS.map((f) => `image/${f}`),
  },
}

export const TOOL_APIS: readonly ToolApi[] = TOOL_LIST.map((tool) => ({
  tool,
  fields: [fileField(tool), ...OPTIONS[tool.slug].fields],
  answer: OPTIONS[tool.slug].answer,
  answerTypes: OPTIONS[tool.slug].answerTypes,
  answerHeaders: OPTIONS[tool.slug].answerHeaders,
}))
