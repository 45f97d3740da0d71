// The OpenAPI entry of POST /api/v1.0/removebg (client-safe: the /api page and the document read it).
type Schema = Record<string, unknown>

/** remove.bg's parameters as the studio honours them; the rest answer 400 (see the /api page). */
export const REMOVEBG_PARAMETERS: Array<{ name: string; schema: Schema; description: string }> = [
  { name: 'image_file', schema: { type: 'string', contentMediaType: 'application/octet-stream' }, description: 'The image (PNG, JPG or WebP, up to 12 MB). One of image_file, image_file_b64, image_url.' },
  { name: 'image_file_b64', schema: { type: 'string', contentEncoding: 'base64' }, description: 'The image as base64 (a data: prefix is accepted).' },
  { name: 'image_url', schema: { type: 'string', format: 'uri' }, description: 'Fetched by the studio: public addresses only, 12 MB, 10 s, at most 3 redirects (each checked).' },
  { name: 'size', schema: { type: 'string', enum: ['preview', 'small', 'regular', 'medium', 'hd', 'full', '4k', 'auto', '50MP'] }, description: 'Output cap: preview 0.25 MP (default), medium 1.5 MP, hd 4 MP, full/4k/auto 25 MP, 50MP up to the studio\'s 40 MP input limit.' },
  { name: 'type', schema: { type: 'string', enum: ['auto'] }, description: 'auto only: other foreground types answer 400 (the studio does not classify the foreground).' },
  { name: 'type_level', schema: { type: 'string', enum: ['none', '1', '2', 'latest'] }, description: 'Accepted; X-Type is always other (none: no X-Type).' },
  { name: 'format', schema: { type: 'string', enum: ['auto', 'png', 'jpg', 'zip', 'webp'] }, description: 'auto (default): JPEG over a background, PNG when transparent. jpg without a background is on white. zip: color.jpg + alpha.png.' },
  { name: 'roi', schema: { type: 'string' }, description: 'Only the whole image ("0% 0% 100% 100%"); any other region answers 400.' },
  { name: 'crop', schema: { type: 'boolean' }, description: 'Crop to the subject.' },
  { name: 'crop_margin', schema: { type: 'string' }, description: 'With crop: 30px (at most 500) or 10% of the subject\'s longer side (at most 50%).' },
  { name: 'scale', schema: { type: 'string' }, description: '10% to 100%, or original (default). Not with crop.' },
  { name: 'position', schema: { type: 'string' }, description: 'original (default), center, or "x% y%". Not with crop.' },
  { name: 'channels', schema: { type: 'string', enum: ['rgba', 'alpha'] }, description: 'alpha: the grayscale matte alone (PNG).' },
  { name: 'add_shadow', schema: { type: 'boolean' }, description: 'A soft drop shadow under any subject (shadow_type and shadow_opacity answer 400).' },
  { name: 'semitransparency', schema: { type: 'boolean' }, description: 'false: hard edges (every pixel opaque or transparent).' },
  { name: 'bg_color', schema: { type: 'string' }, description: 'Hex (81d4fa, fff) or white or black; with alpha or other names: 400.' },
  { name: 'bg_image_url', schema: { type: 'string', format: 'uri' }, description: 'A backdrop image fetched like image_url, scaled to cover.' },
  { name: 'bg_image_file', schema: { type: 'string', contentMediaType: 'application/octet-stream' }, description: 'A backdrop image file, scaled to cover.' },
]

export const REMOVEBG_ERROR_SCHEMA: Schema = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      items: { type: 'object', required: ['title', 'code'], properties: { title: { type: 'string' }, code: { type: 'string' }, detail: { type: 'string' } } },
    },
  },
}

export function removeBgPath(rateHeaders: Schema): Schema {
  const properties = Object.fromEntries(REMOVEBG_PARAMETERS.map((p) => [p.name, { ...p.schema, description: p.description }]))
  const body = { type: 'object', properties }
  const failure = (description: string) => ({ description, content: { 'application/json': { schema: REMOVEBG_ERROR_SCHEMA } } })
  const integer = (description: string) => ({ schema: { type: 'integer' }, description })
  return {
    post: {
      tags: ['Tools'],
      summary: 'Remove the background, remove.bg-compatible',
      description:
        'remove.bg\'s POST /v1.0/removebg on the studio\'s background remover: change the base URL and send a studio API key in X-Api-Key. Runs through the same job path as /api/remove-bg/ (charged once, refunded when the run fails).',
      security: [{ removeBgKey: [] }, { bearerKey: [] }],
      requestBody: {
        required: true,
        content: { 'multipart/form-data': { schema: body }, 'application/json': { schema: body }, 'application/x-www-form-urlencoded': { schema: body } },
      },
      responses: {
        '200': {
          description: 'The image (Accept: image/*), or JSON with it in base64 (Accept: application/json).',
          headers: {
            'X-Credits-Charged': integer('Credits this run took (0 for a test key).'),
            'X-Width': integer('The result\'s width.'),
            'X-Height': integer('The result\'s height.'),
            'X-Type': { schema: { type: 'string' }, description: 'Always other: the studio does not classify the foreground.' },
            'X-Foreground-Top': integer('The subject\'s box in the result.'),
            'X-Foreground-Left': integer('The subject\'s box in the result.'),
            'X-Foreground-Width': integer('The subject\'s box in the result.'),
            'X-Foreground-Height': integer('The subject\'s box in the result.'),
            ...rateHeaders,
          },
          content: {
            'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
            'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } },
            'image/webp': { schema: { type: 'string', contentMediaType: 'image/webp' } },
            'application/zip': { schema: { type: 'string', contentMediaType: 'application/zip' } },
            'application/json': {
              schema: {
                type: 'object',
                required: ['data'],
                properties: {
                  data: {
                    type: 'object',
                    required: ['result_b64', 'foreground_top', 'foreground_left', 'foreground_width', 'foreground_height'],
                    properties: {
                      result_b64: { type: 'string', contentEncoding: 'base64' },
                      foreground_top: { type: 'integer' },
                      foreground_left: { type: 'integer' },
                      foreground_width: { type: 'integer' },
                      foreground_height: { type: 'integer' },
                    },
                  },
                },
              },
            },
          },
        },
        '400': failure('A parameter is not valid or cannot be honoured, the image is not valid, not reachable, or has no foreground.'),
        '402': failure('Not enough credits.'),
        '403': failure('No API key, or it is not valid.'),
        '405': failure('Not POST.'),
        '413': failure('The image (image_file, image_file_b64 or image_url) is past the remover\'s limit (code file_too_large).'),
        '429': failure('Too many requests; see Retry-After.'),
        '503': failure('The studio is busy; see Retry-After.'),
      },
    },
  }
}
