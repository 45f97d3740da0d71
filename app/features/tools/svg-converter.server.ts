// The SVG converter: a sanitised SVG rendered by resvg (or, where resvg cannot draw it, librsvg) and
// encoded by sharp (no metadata) in one of a pool of renderer processes (see
// svg-renderer-pool.server.ts for why).
import sharp from 'sharp'
import { config } from '~/config.server'
import { logger } from '~/utils/logger.server'
import { singleton } from '~/utils/singleton.server'
import { DEFAULT_BACKGROUND, type SvgFormat } from '../../catalog/tools'
import { badRequest } from '../jobs/errors.server'
import type { PhaseProgress } from './image'
import { RendererPool, type SvgRendererName } from './svg-renderer-pool.server'
import type { SanitizedSvg } from './svg-sanitize.server'

/** Output cap: 40 MP (160 MB of RGBA) and WebP's largest side. */
export const MAX_OUTPUT_PIXELS = 40_000_000
export const MAX_OUTPUT_SIDE = 16_383

export interface SvgConvertOptions {
  format: SvgFormat
  scale: number
  /** Applied only when the client sent one; JPEG without one is flattened on white. */
  background?: string
}

export interface SvgConversion {
  bytes: Buffer
  contentType: string
  width: number
  height: number
  renderMs: number
  /** Peak memory of the render process (kB), for the benchmark. */
  rendererMaxRssKb: number
  /** Time resvg spent parsing and rasterising, inside the render process (the rest is overhead). */
  resvgMs: { parse: number; render: number }
  /** The library that drew it (X-Facet-Model). */
  renderer: SvgRendererName
  /** Told to the caller (X-Facet-Note) when librsvg drew what resvg could not. */
  note: string | null
}

/** X-Facet-Note of a file drawn by librsvg (the header is ASCII: no typographic quotes). */
export const LIBRSVG_NOTE = 'Drawn by librsvg: resvg, the usual SVG renderer, could not draw this file.'

const CONTENT_TYPES: Record<SvgFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' }

export function contentTypeFor(format: SvgFormat): string {
  return CONTENT_TYPES[format]
}

/** The background as sharp reads it (any CSS colour); an empty value means the default white. */
export async function parseBackground(value: string): Promise<string> {
  const colour = value.trim() || DEFAULT_BACKGROUND
  if (colour.length > 64) throw badRequest('background must be a colour such as #ffffff.')
  try {
    await sharp({ create: { width: 1, height: 1, channels: 3, background: colour } }).raw().toBuffer()
  } catch {
    throw badRequest(`background "${colour.slice(0, 64)}" is not a colour: use a value such as #ffffff.`)
  }
  return colour
}

/** Refuses an output over the cap from the SVG's own size, before any process is started. */
export function checkOutputSize(svg: Pick<SanitizedSvg, 'width' | 'height'>, scale: number): { width: number; height: number } {
  const width = Math.ceil(svg.width * scale)
  const height = Math.ceil(svg.height * scale)
  if (width * height > MAX_OUTPUT_PIXELS || width > MAX_OUTPUT_SIDE || height > MAX_OUTPUT_SIDE) {
    throw badRequest(
      `The rendered image would be ${width}×${height} pixels; the limit is ${MAX_OUTPUT_PIXELS / 1e6} megapixels and ${MAX_OUTPUT_SIDE} pixels a side. Choose a smaller scale.`,
    )
  }
  return { width, height }
}

const poolHolder = () => singleton('svg-renderer-pool', () => ({ pool: null as RendererPool | null }))

/** The renderer pool of this process, started on first use with the configured size and limits. */
export function svgRenderers(): RendererPool {
  const holder = poolHolder()
  if (!holder.pool) {
    const c = config()
    holder.pool = new RendererPool({
      size: c.SVG_RENDERERS,
      timeoutMs: c.SVG_RENDER_TIMEOUT_MS,
      memoryMb: c.SVG_RENDERER_MEMORY_MB,
      maxRenders: c.SVG_RENDERER_MAX_RENDERS,
    })
  }
  return holder.pool
}

/** Tests change the pool's settings: the old pool's processes are stopped and a new pool starts on next use. */
export function resetSvgRenderersForTests(): void {
  const holder = poolHolder()
  holder.pool?.close()
  holder.pool = null
}

/** resvg's render done, then the encoded file. */
export type SvgPhase = 'rendered' | 'encoded'

export async function convertSvg(
  svg: SanitizedSvg,
  options: SvgConvertOptions,
  signal?: AbortSignal,
  progress: PhaseProgress<SvgPhase> = () => {},
): Promise<SvgConversion> {
  checkOutputSize(svg, options.scale)
  const started = performance.now()
  const background = options.background ?? (options.format === 'jpeg' ? DEFAULT_BACKGROUND : undefined)
  const rendered = await svgRenderers().render(
    {
      svg: svg.svg,
      width: svg.width,
      height: svg.height,
      scale: options.scale,
      format: options.format,
      background,
      fonts: svg.hasText !== false,
      maxPixels: MAX_OUTPUT_PIXELS,
      maxSide: MAX_OUTPUT_SIDE,
    },
    signal,
  )
  if (rendered.resvgFailure) logger.info({ resvg: rendered.resvgFailure }, 'librsvg drew an SVG that resvg could not')
  // The renderer process renders and encodes in one go: both phases end together.
  progress('rendered', 1)
  progress('encoded', 1)
  return {
    bytes: rendered.bytes,
    contentType: contentTypeFor(options.format),
    width: rendered.width,
    height: rendered.height,
    renderMs: performance.now() - started,
    rendererMaxRssKb: rendered.maxRssKb,
    resvgMs: { parse: rendered.timings.parseMs, render: rendered.timings.renderMs },
    renderer: rendered.renderer,
    note: rendered.renderer === 'librsvg' ? LIBRSVG_NOTE : null,
  }
}
