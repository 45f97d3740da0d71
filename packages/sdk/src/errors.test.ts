// FacetError carries the studio's words: the body's error, else detail, else the status text.
import { expect, it } from 'vitest'
import { errorFromResponse, FacetError, REQUEST_FAILED } from './errors'

it('reads the message, code, Retry-After and balance from a refusal', async () => {
  const refusal = Response.json({ error: 'The image would not finish in time.', detail: 'same', code: 'image_too_slow', remaining: 7 }, { status: 422, headers: { 'Retry-After': '30' } })
  const error = await errorFromResponse(refusal)
  expect(error).toBeInstanceOf(FacetError)
  expect(error).toMatchObject({ status: 422, message: 'The image would not finish in time.', code: 'image_too_slow', retryAfter: 30, remaining: 7, refused: true })
  expect(error.body).toMatchObject({ code: 'image_too_slow' })
})

it('falls back to detail, then the status text, then "Request failed"; a balance may come from the header', async () => {
  expect((await errorFromResponse(Response.json({ detail: 'Older field.' }, { status: 400 }))).message).toBe('Older field.')
  const busy = await errorFromResponse(new Response('', { status: 503, statusText: 'Service Unavailable', headers: { 'X-Credits-Remaining': '4' } }))
  expect(busy).toMatchObject({ message: 'Service Unavailable', remaining: 4, refused: false, code: null, retryAfter: null })
  expect((await errorFromResponse(new Response(null, { status: 500 }))).message).toBe(REQUEST_FAILED)
  expect((await errorFromResponse(new Response('upstream broke', { status: 502 }))).message).toBe('upstream broke')
})
