// Untrusted SVG made safe to render. resvg resolves `href`s against the file system and renders
// nested SVG images, so anything that could reach outside the document is removed: scripts,
// event handlers, foreignObject, processing instructions, every href/src that is not a
// same-document #fragment or an embedded raster data: URL, and every CSS url()/@import that
// points elsewhere. DOCTYPE and ENTITY declarations (XXE, billion laughs) are refused outright.
import { DOMParser, XMLSerializer, type Element, type Node } from '@xmldom/xmldom'
import { fileTypeFromBuffer } from 'file-type'
import { badRequest, unsupportedType } from '../jobs/errors.server'

const SVG_NS = 'http://www.w3.org/2000/svg'
const XINCLUDE_NS = 'http://www.w3.org/2001/XInclude'
const REMOVED_ELEMENTS = new Set([
  'script',
  'foreignobject',
  'iframe',
  'object',
  'embed',
  'audio',
  'video',
  'handler',
  'listener',
  // Animation is not rendered, but `set`/`animate` can retarget an href.
  'set',
  'animate',
  'animatemotion',
  'animatetransform',
  'animatecolor',
])
const SAFE_DATA_URL = /^data:image\/(png|jpe?g|gif|webp)[;,]/i
const CSS_URL = /url\(\s*(['"]?)(.*?)\1\s*\)/gi
const CSS_IMPORT = /@import\b[^;]*;?/gi
const PLAIN_DOCTYPE = /<!DOCTYPE\s+svg(\s+PUBLIC\s+("[^"]*"|'[^']*')\s+("[^"]*"|'[^']*')|\s+SYSTEM\s+("[^"]*"|'[^']*'))?\s*>/i
/** A DOCTYPE with an internal subset (no SYSTEM id), as Sodipodi and Adobe Illustrator write them. */
const DOCTYPE_WITH_SUBSET = /<!DOCTYPE\s+svg(?:\s+PUBLIC\s+(?:"[^"]*"|'[^']*')\s+(?:"[^"]*"|'[^']*'))?\s*\[([^\]]*)\]\s*>/i
/**
 * What such a subset may hold: attribute defaults (Sodipodi's xmlns:xlink) and entities that stand
 * for a short plain text (Illustrator's namespace names). A value without `&`, `%` or markup cannot
 * nest (no billion laughs), reach outside (no SYSTEM: no XXE) or add elements or attributes.
 */
const SUBSET_DECLARATION = /<!ATTLIST\s[^>]*>|<!ENTITY\s+([A-Za-z_][\w.-]*)\s+(?:"([^"'&%<>]{0,200})"|'([^"'&%<>]{0,200})')\s*>|<!--[\s\S]*?-->|\s+/g
/** How much the plain entities may add to a file in all. */
const MAX_ENTITY_GROWTH = 1_000_000
const DOCTYPE_MESSAGE = 'SVG files with DOCTYPE or ENTITY declarations are not accepted. Remove them and try again.'

export const INVALID_SVG_TYPE = 'Invalid file type. Upload an SVG file.'

export interface SanitizedSvg {
  svg: string
  /** The SVG's own size in CSS pixels, from width/height or the viewBox (resvg's default 100 otherwise). */
  width: number
  height: number
  /** What was removed, for the logs and tests. */
  removed: string[]
  /** False when the drawing has no text element: the renderer then skips loading fonts (about 2 ms a render). */
  hasText?: boolean
}

function isSafeReference(value: string): boolean {
  const v = value.trim()
  return v.startsWith('#') || SAFE_DATA_URL.test(v)
}

function cleanCss(css: string, removed: string[]): string {
  let out = css.replace(CSS_IMPORT, () => {
    removed.push('@import')
    return ''
  })
  out = out.replace(CSS_URL, (match, _quote: string, target: string) => {
    if (isSafeReference(target)) return match
    removed.push(`url(${target.slice(0, 60)})`)
    return 'none'
  })
  return out
}

const LENGTH = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(px|pt|pc|mm|cm|in|em|ex|%)?\s*$/i
const UNIT_PX: Record<string, number> = { px: 1, pt: 4 / 3, pc: 16, mm: 96 / 25.4, cm: 96 / 2.54, in: 96, em: 16, ex: 8 }

function parseLength(value: string | null): number | null {
  if (!value) return null
  const m = LENGTH.exec(value)
  if (!m) return null
  const unit = (m[2] ?? 'px').toLowerCase()
  if (unit === '%') return null
  const n = Number(m[1]) * UNIT_PX[unit]!
  return Number.isFinite(n) && n > 0 ? n : null
}

function intrinsicSize(root: Element): { width: number; height: number } {
  const box = (root.getAttribute('viewBox') ?? '')
    .trim()
    .split(/[\s,]+/)
    .map(Number)
  const hasBox = box.length === 4 && box.every(Number.isFinite) && box[2]! > 0 && box[3]! > 0
  let width = parseLength(root.getAttribute('width'))
  let height = parseLength(root.getAttribute('height'))
  if (hasBox) {
    const ratio = box[2]! / box[3]!
    if (width === null && height === null) {
      width = box[2]!
      height = box[3]!
    } else if (width === null) width = height! * ratio
    else if (height === null) height = width / ratio
  }
  return { width: width ?? 100, height: height ?? 100 }
}

/** Text that starts like an SVG document (after an XML declaration and comments). */
function claimsToBeSvg(text: string): boolean {
  return /^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>/]/i.test(text)
}

/**
 * The text without a DOCTYPE whose internal subset holds only attribute defaults and plain-text
 * entities, those entities written out where they are used (decision 164); any other text unchanged.
 */
function withoutPlainSubset(text: string): string {
  const doctype = DOCTYPE_WITH_SUBSET.exec(text)
  if (!doctype) return text
  const entities = new Map<string, string>()
  const rest = doctype[1]!.replace(SUBSET_DECLARATION, (_declaration, name?: string, double?: string, single?: string) => {
    if (name) entities.set(name, double ?? single ?? '')
    return ''
  })
  // Something else is declared: left in place, to be refused.
  if (rest !== '') return text
  const body = text.slice(0, doctype.index) + text.slice(doctype.index + doctype[0].length)
  if (entities.size === 0) return body
  const reference = new RegExp(`&(${[...entities.keys()].map((name) => name.replace(/[.]/g, '\\.')).join('|')});`, 'g')
  let growth = 0
  for (const match of body.matchAll(reference)) growth += entities.get(match[1]!)!.length - match[0].length
  if (growth > MAX_ENTITY_GROWTH) throw badRequest(DOCTYPE_MESSAGE)
  return body.replace(reference, (_match, name: string) => entities.get(name)!)
}

export async function sanitizeSvg(bytes: Buffer): Promise<SanitizedSvg> {
  // A binary format under an .svg name is the wrong type, whatever it claims (file-type calls SVG 'xml').
  const binary = await fileTypeFromBuffer(bytes)
  if (binary && binary.mime !== 'application/xml' && binary.mime !== 'image/svg+xml') throw unsupportedType(INVALID_SVG_TYPE)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw unsupportedType(INVALID_SVG_TYPE)
  }
  // Many editors write a plain public DOCTYPE; it declares nothing and is dropped (no DTD is ever
  // fetched). An internal subset of attribute defaults and plain-text entities is dropped too, its
  // entities written out; anything else with an internal subset or an ENTITY is refused: that is XXE
  // and entity bombs.
  text = withoutPlainSubset(text.replace(PLAIN_DOCTYPE, ''))
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw badRequest(DOCTYPE_MESSAGE)

  let root: Element | null = null
  try {
    const doc = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message)
      },
    }).parseFromString(text, 'image/svg+xml')
    root = doc.documentElement
  } catch {
    if (claimsToBeSvg(text)) throw badRequest('The SVG could not be read: it is not well-formed XML.')
    throw unsupportedType(INVALID_SVG_TYPE)
  }
  if (!root || root.localName !== 'svg') throw unsupportedType(INVALID_SVG_TYPE)
  if (!root.namespaceURI) root.setAttribute('xmlns', SVG_NS)

  const removed: string[] = []
  let hasText = false
  const stack: Node[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    for (let child = node.firstChild; child; ) {
      const next = child.nextSibling
      if (child.nodeType === 7 /* processing instruction */) {
        removed.push(`<?${child.nodeName}?>`)
        node.removeChild(child)
      } else if (child.nodeType === 1) {
        const element = child as Element
        const name = (element.localName ?? element.nodeName).toLowerCase()
        if (REMOVED_ELEMENTS.has(name) || element.namespaceURI === XINCLUDE_NS) {
          removed.push(`<${name}>`)
          node.removeChild(child)
        } else {
          stack.push(child)
        }
      }
      child = next
    }
    if (node.nodeType !== 1) continue
    const element = node as Element
    const name = (element.localName ?? '').toLowerCase()
    // Any namespace counts: loading fonts for an element resvg then ignores costs only time.
    if (name === 'text') hasText = true
    for (const attribute of Array.from(element.attributes)) {
      const local = (attribute.localName ?? attribute.name).toLowerCase()
      if (local.startsWith('on')) {
        removed.push(`${attribute.name}=`)
        element.removeAttributeNode(attribute)
      } else if (local === 'href' || local === 'src') {
        if (!isSafeReference(attribute.value)) {
          removed.push(`${attribute.name}=${attribute.value.slice(0, 60)}`)
          element.removeAttributeNode(attribute)
        }
      } else if (/url\(|@import/i.test(attribute.value)) {
        element.setAttributeNS(attribute.namespaceURI, attribute.name, cleanCss(attribute.value, removed))
      }
    }
    if (name === 'style') {
      const css = element.textContent ?? ''
      const cleaned = cleanCss(css, removed)
      if (cleaned !== css) element.textContent = cleaned
    }
  }

  const { width, height } = intrinsicSize(root)
  return { svg: new XMLSerializer().serializeToString(root), width, height, removed, hasText }
}
