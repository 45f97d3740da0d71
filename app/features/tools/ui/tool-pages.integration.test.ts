// The tool pages without JavaScript: the form posts to the page's own action, which runs the tool
// and hands the page the stored result, the remaining credits, or the error.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { action as blurAction, loader as blurLoader } from '~/routes/tools.face-blurrer'
import sharp from 'sharp'
import { action as removerAction, loader as removerLoader } from '~/routes/tools.background-remover'
import { action as svgAction, loader as svgLoader } from '~/routes/tools.svg-converter'
import { LIBRSVG_NOTE } from '~/features/tools/svg-converter.server'
import { newUser, randomIp } from '../../../../tests/support/tools'
import { config } from '~/config.server'
import { loader as resultLoader } from '~/routes/api.results.$id'
import { BASE, cookieFrom, formRequest, readResult, routeArgs } from '../../../../tests/support/requests'
import type { ToolPageResult } from './page-result'
import { JOB_GONE_MESSAGE } from '../page-loader.server'

const fixture = (name: string) => readFileSync(path.resolve('tests/fixtures', name))
const file = (name: string, type: string, bytes = fixture(name)) => new File([new Uint8Array(bytes)], path.basename(name), { type })
// Each new visitor at an address of its own: visitors without one share the test address's daily budget with
// every test running at the same time, so what a new visitor there is granted would depend on them.
const ownAddress = () => ({ 'x-facet-client-ip': randomIp() })

describe('tool page actions (no JavaScript)', () => {
  it('blurs a group photo, charges a new visitor and redirects to the stored result', async () => {
    const posted = await readResult(
      await blurAction(
        routeArgs(
          formRequest(
            '/tools/face-blurrer',
            { image: file('photos/group-nasa-astronaut-class-2.png', 'image/png'), blur: '40' },
            { headers: ownAddress() },
          ),
        ),
      ),
    )
    // Post/Redirect/Get: reloading the result page never runs (and charges) again.
    expect(posted.status).toBe(302)
    const location = new URL(posted.headers.get('location')!, BASE)
    expect(location.pathname).toBe('/tools/face-blurrer')
    expect(location.searchParams.get('blur')).toBe('40')
    // An HTML page carries the visitor's cookie, never the API's content headers.
    const cookie = cookieFrom(posted.headers)
    expect(cookie).not.toBe('')
    expect(posted.headers.get('content-disposition')).toBeNull()

    // The page follows the job until it ends (without JavaScript it reloads itself meanwhile).
    expect(location.searchParams.get('job')).toMatch(/^[0-9a-f-]{36}$/)
    let page = await blurLoader(routeArgs(new Request(location, { headers: { cookie } })))
    expect(page.job?.id).toBe(location.searchParams.get('job'))
    await vi.waitFor(
      async () => {
        page = await blurLoader(routeArgs(new Request(location, { headers: { cookie } })))
        expect(page.job?.status).toBe('succeeded')
      },
      { timeout: 30_000, interval: 100 },
    )
    expect(page.job).toMatchObject({ progress: 100, facesFound: 8, refunded: false })
    expect(page.cost).toBe(1)
    const body = page.pageResult as ToolPageResult
    if (!body.ok) throw new Error(`run failed: ${body.error}`)
    expect(body.facesFound).toBe(8)
    // The options come back, so the page can say which radius was applied.
    expect(body.fieldValues?.blur).toBe('40')
    expect(body.filename).toBe('face-blurred.png')
    expect(body.remaining).toBe(4)
    expect(body.downloadUrl).toBe(`${body.resultUrl}?download=1`)

    const strangerPage = await blurLoader(routeArgs(new Request(location)))
    expect(strangerPage.pageResult).toMatchObject({ ok: false, error: JOB_GONE_MESSAGE })
    expect(strangerPage.job).toBeNull()

    const id = body.resultUrl.split('/').pop()!
    const own = await resultLoader(routeArgs(new Request(BASE + body.downloadUrl, { headers: { cookie } }), { id }))
    expect(own.status).toBe(200)
    expect(own.headers.get('content-type')).toBe('image/png')
    expect(own.headers.get('content-disposition')).toContain('face-blurred.png')
    const png = Buffer.from(await own.arrayBuffer())
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG')

    const stranger = await resultLoader(routeArgs(new Request(BASE + body.resultUrl), { id }))
    expect(stranger.status).toBe(404)
  })

  it('composes the remover\'s output options from the plain form: crop, background image, file type', async () => {
    const green = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#00ff00' } }).png().toBuffer()
    const posted = await readResult(
      await removerAction(
        routeArgs(
          formRequest(
            '/tools/background-remover',
            {
              image: file('photos/noface-rocket.jpg', 'image/jpeg'),
              background: '',
              background_custom: '',
              crop: 'true',
              crop_margin: '',
              channels: 'rgba',
              format: 'webp',
              // The empty file input a browser sends would be ignored; this one carries a picture.
              background_image: new File([new Uint8Array(green)], 'green.png', { type: 'image/png' }),
            },
            { headers: ownAddress() },
          ),
        ),
      ),
    )
    expect(posted.status).toBe(302)
    const location = new URL(posted.headers.get('location')!, BASE)
    const cookie = cookieFrom(posted.headers)
    let page = await removerLoader(routeArgs(new Request(location, { headers: { cookie } })))
    await vi.waitFor(
      async () => {
        page = await removerLoader(routeArgs(new Request(location, { headers: { cookie } })))
        expect(page.job?.status).toBe('succeeded')
      },
      { timeout: 60_000, interval: 100 },
    )
    const body = page.pageResult as ToolPageResult
    if (!body.ok) throw new Error(`run failed: ${body.error}`)
    expect(body.filename).toBe('background-removed.webp')
    const id = body.resultUrl.split('/').pop()!
    const own = await resultLoader(routeArgs(new Request(BASE + body.downloadUrl, { headers: { cookie } }), { id }))
    expect(own.headers.get('content-type')).toBe('image/webp')
    const meta = await sharp(Buffer.from(await own.arrayBuffer())).metadata()
    expect(meta.width! < 640 || meta.height! < 427).toBe(true) // cropped to the subject
  })

  it('shows the reason and charges nothing for a file of the wrong type', async () => {
    const posted = await readResult(
      await removerAction(
        routeArgs(
          formRequest(
            '/tools/background-remover',
            { image: new File([new TextEncoder().encode('not an image at all')], 'notes.png', { type: 'image/png' }) },
            { headers: ownAddress() },
          ),
        ),
      ),
    )
    expect(posted.status).toBe(415)
    const body = posted.body as ToolPageResult
    expect(body.ok).toBe(false)
    if (body.ok) return
    expect(body.error.length).toBeGreaterThan(0)
    // A new visitor's whole allowance: the refusal cost nothing.
    expect(body.remaining).toBe(config().GUEST_DAILY_CREDITS)
  })

  it('converts an SVG that crashes resvg and the page says librsvg drew it', async () => {
    const user = await newUser()
    const posted = await readResult(
      await svgAction(
        routeArgs(
          formRequest(
            '/tools/svg-converter',
            { svg: file('svg/openclipart-digital-camera-gradients.svg', 'image/svg+xml'), format: 'png', scale: '1' },
            { headers: user.headers },
          ),
        ),
      ),
    )
    expect(posted.status).toBe(302)
    const location = new URL(posted.headers.get('location')!, BASE)
    let page = await svgLoader(routeArgs(new Request(location, { headers: user.headers })))
    await vi.waitFor(
      async () => {
        page = await svgLoader(routeArgs(new Request(location, { headers: user.headers })))
        expect(page.job?.status).toBe('succeeded')
      },
      { timeout: 30_000, interval: 100 },
    )
    expect(page.pageResult).toMatchObject({ ok: true, note: LIBRSVG_NOTE, model: 'librsvg' })
  })

  it('asks a visitor to sign in before converting an SVG', async () => {
    const posted = await readResult(
      await svgAction(
        routeArgs(
          formRequest('/tools/svg-converter', {
            svg: file('svg/tango-user-home.svg', 'image/svg+xml'),
            format: 'png',
            scale: '1',
          }),
        ),
      ),
    )
    expect(posted.status).toBe(401)
    const body = posted.body as ToolPageResult
    expect(body).toMatchObject({ ok: false, error: 'Sign in with a Facet Studio account to convert SVG files.' })
  })
})
