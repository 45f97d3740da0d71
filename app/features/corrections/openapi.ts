// The OpenAPI entries of the corrections API (decision 157), client-safe: the document
// (api-docs/openapi.ts) and the /api page read them.
import { CREDITS_CHARGED_HEADER } from '~/features/api-keys/environments'
import { EDGE_LIMITS, EDIT_PREVIEW_MAX_SIDE } from './types'

type Schema = Record<string, unknown>
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` })
const error = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } })
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The job id (X-Facet-Job-Id of a tool’s answer).' }
const nullable = (type: string) => ({ type: [type, 'null'] })
const BOX: Schema = {
  type: 'object',
  required: ['x', 'y', 'width', 'height'],
  properties: { x: { type: 'number' }, y: { type: 'number' }, width: { type: 'number' }, height: { type: 'number' } },
}

export const correctionSchemas: Record<string, Schema> = {
  Box: { ...BOX, description: 'A rectangle in the result’s pixels.' },
  FaceBox: {
    type: 'object',
    required: ['x', 'y', 'width', 'height', 'score'],
    properties: { ...(BOX.properties as Schema), score: { ...nullable('number'), description: 'The detector’s confidence; null for a box you drew.' } },
  },
  Corrections: {
    type: 'object',
    description: 'What a result can be corrected with, and its corrections now.',
    required: ['job_id', 'kind', 'tool', 'width', 'height', 'result_url', 'parts', 'detected_faces', 'faces', 'edges', 'corrected', 'expires_at'],
    properties: {
      job_id: { type: 'string', format: 'uuid' },
      kind: { enum: ['cutout', 'faces'] },
      tool: { enum: ['background-remover', 'face-blurrer'] },
      width: { type: 'integer', description: 'The size a mask has: the photo’s (a cropped or scaled output is laid out from it).' },
      height: { type: 'integer' },
      filename: { type: 'string' },
      result_url: { type: 'string', description: 'The result, corrected: the job’s result_url.' },
      photo_preview_url: { type: 'string', description: `The photo, long side at most ${EDIT_PREVIEW_MAX_SIDE} px, JPEG.` },
      matte_preview_url: { ...nullable('string'), description: 'Cutout: the current alpha at the preview size (greyscale PNG).' },
      mask_preview_url: { ...nullable('string'), description: 'Cutout: your stored brush mask at the preview size, or null.' },
      preview_width: { type: 'integer' },
      preview_height: { type: 'integer' },
      parts: {
        type: 'array',
        description: 'Cutout: the model’s parts (regions of its matte), whether the refinement kept them, and your decision.',
        items: {
          type: 'object',
          required: ['id', 'box', 'area', 'mean_alpha', 'kept_by_refinement', 'decision', 'thumbnail_url'],
          properties: {
            id: { type: 'string' },
            box: ref('Box'),
            area: { type: 'integer' },
            mean_alpha: { type: 'number', minimum: 0, maximum: 1 },
            kept_by_refinement: { type: 'boolean' },
            decision: { enum: ['keep', 'remove', null] },
            thumbnail_url: { type: 'string' },
          },
        },
      },
      detected_faces: { type: 'array', items: ref('FaceBox'), description: 'Faces: as the detector found them.' },
      faces: { type: 'array', items: ref('FaceBox'), description: 'Faces: the boxes blurred now.' },
      edges: {
        type: 'object',
        required: ['feather', 'grow', 'decontaminate'],
        properties: { feather: { type: 'integer' }, grow: { type: 'integer' }, decontaminate: { type: 'boolean' } },
      },
      corrected: { type: 'boolean' },
      blur_radius: { ...nullable('integer'), description: 'Faces: the run’s blur radius.' },
      expires_at: { type: 'string', format: 'date-time', description: 'With the result: then the corrections and what they need are deleted.' },
    },
  },
}

const REFUSALS = {
  '404': error('Unknown, or another account’s job.'),
  '409': error('Another tool’s job, or a run that did not deliver a result: nothing to correct.'),
  '410': error('The result has expired (what a correction needs is kept as long as the result, 24 hours).'),
}

export function correctionPaths(security: unknown[]): Record<string, Schema> {
  return {
    '/api/jobs/{id}/corrections/': {
      get: {
        tags: ['Corrections'],
        summary: 'What a result can be corrected with (the parts, the detected faces, the previews) and its corrections now',
        security,
        parameters: [idParam],
        responses: { '200': { description: 'The corrections view (snake_case).', content: { 'application/json': { schema: ref('Corrections') } } }, ...REFUSALS },
      },
      post: {
        tags: ['Corrections'],
        summary: 'Apply a correction: the result re-rendered (no model run, no charge); the job’s result_url then serves it',
        description:
          'multipart/form-data; every post describes the whole correction (a field not sent: none, the default, the detected faces). A cutout takes `mask`, `feather`, `grow`, `decontaminate`, `parts`; a face-blur result takes `faces`. A plain grey mask with the default edges gives back the uncorrected result exactly.',
        security,
        parameters: [idParam],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                properties: {
                  mask: {
                    type: 'string',
                    contentMediaType: 'image/png',
                    description:
                      'A greyscale PNG of the result’s size (or smaller with the same proportions, scaled up): white restores, black removes, mid-grey (128) and transparent leave the model’s matte. The text `keep` keeps the mask stored before.',
                  },
                  feather: { type: 'integer', minimum: EDGE_LIMITS.feather.min, maximum: EDGE_LIMITS.feather.max, description: 'Softens the edge: a blur of the alpha, px (default 0).' },
                  grow: { type: 'integer', minimum: EDGE_LIMITS.grow.min, maximum: EDGE_LIMITS.grow.max, description: 'Grows the matte by this many px; negative shrinks it (default 0).' },
                  decontaminate: { type: 'boolean', description: 'true (default): the edge colours unmixed from the background; false: the photo’s own.' },
                  parts: { type: 'string', description: 'JSON object: part id → keep or remove. Keeping a part the refinement dropped brings it back; removing one deletes it.' },
                  faces: { type: 'string', description: 'JSON array of boxes {x, y, width, height} in the result’s pixels: exactly these are blurred, at the run’s radius.' },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'The corrected result, in the run’s type and layout.',
            headers: {
              [CREDITS_CHARGED_HEADER]: { schema: { const: '0' }, description: 'A correction is free.' },
              'X-Facet-Job-Id': { schema: { type: 'string' }, description: 'The job corrected.' },
            },
            content: {
              'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
              'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } },
              'image/webp': { schema: { type: 'string', contentMediaType: 'image/webp' } },
              'application/zip': { schema: { type: 'string', contentMediaType: 'application/zip' } },
            },
          },
          '400': error('A mask of another size or type, a value out of range, faces on a cutout (or cutout fields on faces), an unknown part.'),
          ...REFUSALS,
          '413': error('The mask is larger than 16 MB.'),
          '429': error('Too many corrections in a short time (60 a minute); see Retry-After.'),
        },
      },
    },
    '/api/jobs/{id}/corrections/preview/{which}': {
      get: {
        tags: ['Corrections'],
        summary: 'The editor’s pictures: photo, matte, mask, result (the current result at the preview size, WebP), part-<id>, face-<index> (of detected_faces)',
        security,
        parameters: [idParam, { name: 'which', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The picture.', content: { 'image/jpeg': { schema: { type: 'string' } }, 'image/png': { schema: { type: 'string' } } } },
          '404': error('No such picture, or another account’s job.'),
        },
      },
    },
  }
}
