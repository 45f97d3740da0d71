// The OpenAPI entries of "this result is wrong" (decision 175), client-safe: the document
// (api-docs/openapi.ts) reads them.
import { RESULT_KEPT_HOURS } from '~/catalog/retention'
import { NOTE_MAX_CHARS } from '~/catalog/feedback'

type Schema = Record<string, unknown>
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` })
const error = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } })
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The job id (X-Facet-Job-Id of a tool’s answer).' }
const report = { description: 'The report as kept.', content: { 'application/json': { schema: ref('FeedbackReport') } } }

export const feedbackSchemas: Record<string, Schema> = {
  FeedbackReport: {
    type: 'object',
    description: `A report that a result is wrong, kept encrypted on this studio with the result and deleted with it (${RESULT_KEPT_HOURS} hours after the run).`,
    required: ['job_id', 'tool', 'note', 'created', 'reported_at', 'expires_at', 'input_kept', 'expected_matte'],
    properties: {
      job_id: { type: 'string', format: 'uuid' },
      tool: { type: 'string' },
      note: { type: ['string', 'null'] },
      created: { type: 'boolean', description: 'false when this report replaced the job’s earlier one.' },
      reported_at: { type: 'string', format: 'date-time' },
      expires_at: { type: 'string', format: 'date-time', description: 'The result’s expiry: the report is deleted with it.' },
      input_kept: { type: 'boolean', description: 'Whether the image the run was given is part of the report (background removal and face blur keep it with the result).' },
      expected_matte: { type: 'boolean', description: 'A corrected cutout: its corrected matte is kept as the expected answer.' },
    },
    additionalProperties: false,
  },
}

export function feedbackPaths(security: unknown[]): Record<string, Schema> {
  return {
    '/api/jobs/{id}/feedback/': {
      post: {
        tags: ['Jobs'],
        summary: 'Report the result as wrong, with an optional note (one report a job: another post replaces it)',
        description:
          'Kept on this studio only, encrypted: the result, the image it was made from where the run kept it, a corrected cutout’s matte as the expected answer, and the note. The operator can export it as a quality-bench case. Nothing is charged.',
        security,
        parameters: [idParam],
        requestBody: {
          required: false,
          content: {
            'application/json': { schema: { type: 'object', properties: { note: { type: ['string', 'null'], maxLength: NOTE_MAX_CHARS } } } },
            'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { note: { type: 'string', maxLength: NOTE_MAX_CHARS } } } },
          },
        },
        responses: {
          '201': report,
          '200': { ...report, description: 'The job’s earlier report, replaced.' },
          '400': error(`A note longer than ${NOTE_MAX_CHARS} characters, or not text.`),
          '404': error('Unknown, or another account’s job.'),
          '409': error('The run did not deliver a result.'),
          '410': error(`The result has expired (results are kept ${RESULT_KEPT_HOURS} hours).`),
          '429': error('Too many reports in a short time (20 a minute); see Retry-After.'),
        },
      },
    },
  }
}
