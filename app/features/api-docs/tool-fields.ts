// Each tool's API fields and answer, built from the catalog's names, limits and choices, for the
// /api documentation page and the OpenAPI document alike. Client-safe.
import { MODEL_CHOICES, MODEL_HEADER } from '~/features/tools/models/model-choices'
import { BACKGROUND_PRESETS, BLUR, DENOISE, SVG_FORMATS, SVG_SCALES, TOOL_LIST, type ToolDefinition, type ToolSlug } from '~/features/tools/catalog'

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
    ],
    answer: `An RGBA PNG at the original size; ${MODEL_HEADER} names the model that made it.`,
    answerTypes: ['image/png'],
    answerHeaders: {
      [MODEL_HEADER]: 'The id of the model that made the cutout (as GET /api/models/ lists it).',
      'X-Facet-Note': 'Present when the model asked for is not installed here and another one was used.',
    },
  },
  'face-restorer': {
    fields: [],
    answer: 'JSON {restored_url, gfpgan_available}: restored_url is readable by you for 24 hours (GET /api/results/<id>).',
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
    ],
    answer: 'A PNG, up to 4× larger within a 16 MP output.',
    answerTypes: ['image/png'],
  },
  'face-blurrer': {
    fields: [
      {
        name: 'blur',
        required: true,
        schema: { type: 'string', pattern: '^\\d+$' },
        description: `Blur radius from ${BLUR.min} to ${BLUR.max} in steps of ${BLUR.step} (the screens start at ${BLUR.default}).`,
      },
    ],
    answer: 'A PNG with the faces blurred; X-Faces-Found says how many (no face: not charged).',
    answerTypes: ['image/png'],
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
}))
