// The SVG converter: a sanitised SVG rendered by resvg in a throw-away child process (see
// svg-render-child.mjs for why), then encoded by sharp with no metadata.
import { fork, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { logger } from '~/utils/logger.server'
import { singleton } from '~/utils/singleton.server'
import { DEFAULT_BACKGROUND, type SvgFormat } from './catalog'
import { badRequest, ToolError } from './errors.server'
import type { PhaseProgress } from './image'
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
}

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

// The Vite build bundles this module elsewhere, so look beside the source first, then from the
// project root (where `node --import tsx server.ts` runs).
function childScript(): string {
  const candidates = [
    path.join(path.dirname(fileURLToPath(import.meta.url)), 'svg-render-child.mjs'),
    path.resolve('app/features/tools/svg-render-child.mjs'),
  ]
  const found = candidates.find((file) => existsSync(file))
  if (!found) throw new Error('svg-render-child.mjs not found')
  return found
}

interface RenderedPixels {
  width: number
  height: number
  pixels: Buffer
  maxRssKb: number
  timings: { parseMs: number; renderMs: number }
}

type ChildAnswer = ({ ok: true } & RenderedPixels) | { ok: false; status: number; error: string; maxRssKb: number }

function spawnRenderer(): ChildProcess {
  const child = fork(childScript(), [], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  // An idle spare must not keep the process (a test run, a script) alive.
  child.unref()
  child.channel?.unref()
  ;(child.stderr as unknown as { unref?: () => void } | null)?.unref?.()
  child.on('error', (error) => logger.warn({ err: error.message }, 'SVG renderer could not start'))
  return child
}

/**
 * Every render gets a fresh process (a crash or a leak costs one request), but starting Node
 * takes tens of milliseconds: one spare is kept started and waiting, and replaced as it is used.
 */
function takeRenderer(): ChildProcess {
  const pool = singleton('svg-renderer-spare', () => ({ spare: null as ChildProcess | null }))
  const ready = pool.spare
  const usable = ready && ready.connected && ready.exitCode === null && ready.signalCode === null
  const child = usable ? ready : spawnRenderer()
  pool.spare = spawnRenderer()
  child.ref()
  child.channel?.ref()
  return child
}

export function renderInChild(svg: string, scale: number, signal?: AbortSignal): Promise<RenderedPixels> {
  return new Promise((resolve, reject) => {
    const child = takeRenderer()
    let answer: ChildAnswer | null = null
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString()
    })
    const onAbort = () => child.kill('SIGKILL')
    signal?.addEventListener('abort', onAbort, { once: true })
    child.on('message', (message) => {
      answer = message as ChildAnswer
    })
    child.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort)
      reject(new ToolError(500, 'Unable to convert SVG.', { cause: error }))
    })
    child.on('exit', (code, exitSignal) => {
      signal?.removeEventListener('abort', onAbort)
      const result = answer
      if (result?.ok) {
        resolve({ width: result.width, height: result.height, pixels: Buffer.from(result.pixels.buffer, result.pixels.byteOffset, result.pixels.byteLength),
          maxRssKb: result.maxRssKb,
          timings: result.timings,
        })
      } else if (result) {
        reject(new ToolError(result.status, result.error, { outcome: result.status >= 422 ? 'failed' : 'rejected' }))
      } else if (signal?.aborted) {
        reject(new ToolError(503, 'The conversion was stopped.', { outcome: 'failed' }))
      } else {
        logger.warn({ code, signal: exitSignal, stderr: stderr.slice(0, 500) }, 'SVG renderer died')
        reject(
          new ToolError(422, 'This SVG could not be rendered: the renderer failed on it. Try simplifying the file.', {
            outcome: 'failed',
          }),
        )
      }
    })
    child.send({ svg, scale, maxPixels: MAX_OUTPUT_PIXELS, maxSide: MAX_OUTPUT_SIDE })
  })
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
  const rendered = await renderInChild(svg.svg, options.scale, signal)
  const renderMs = performance.now() - started
  progress('rendered', 1)
  // resvg's pixels are premultiplied; sharp turns them back into straight alpha as it encodes.
  let pipeline = sharp(rendered.pixels, {
    raw: { width: rendered.width, height: rendered.height, channels: 4, premultiplied: true },
  })
  const background = options.background ?? (options.format === 'jpeg' ? DEFAULT_BACKGROUND : undefined)
  if (background) pipeline = pipeline.flatten({ background })
  // sharp writes no metadata unless asked to (withMetadata), so outputs carry none.
  if (options.format === 'png') pipeline = pipeline.png()
  else if (options.format === 'jpeg') pipeline = pipeline.jpeg({ quality: 92, chromaSubsampling: '4:4:4' })
  else pipeline = pipeline.webp({ quality: 92, alphaQuality: 100 })
  const bytes = await pipeline.toBuffer()
  progress('encoded', 1)
  return {
    bytes,
    contentType: contentTypeFor(options.format),
    width: rendered.width,
    height: rendered.height,
    renderMs,
    rendererMaxRssKb: rendered.maxRssKb,
    resvgMs: { parse: rendered.timings.parseMs, render: rendered.timings.renderMs },
  }
}
