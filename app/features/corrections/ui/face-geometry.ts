// The faces' review, as arithmetic: a box dragged on the shown image in the image's own pixels, and
// the little crop of the photo's preview that shows one face in the list (plain CSS, so it works
// without JavaScript and needs no image of its own).
import type { Box } from '../types'

/** A box smaller than this (in image pixels, either side) is a slip of the finger, not a face. */
export const MIN_DRAWN_BOX = 8

/** The box between two corners of a drag, in image pixels, kept inside the image; null when too small. */
export function boxFromDrag(a: { x: number; y: number }, b: { x: number; y: number }, width: number, height: number): Box | null {
  const clampX = (v: number) => Math.min(width, Math.max(0, v))
  const clampY = (v: number) => Math.min(height, Math.max(0, v))
  const x0 = Math.round(clampX(Math.min(a.x, b.x)))
  const y0 = Math.round(clampY(Math.min(a.y, b.y)))
  const x1 = Math.round(clampX(Math.max(a.x, b.x)))
  const y1 = Math.round(clampY(Math.max(a.y, b.y)))
  if (x1 - x0 < MIN_DRAWN_BOX || y1 - y0 < MIN_DRAWN_BOX) return null
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }
}

/** A point of the page over a shown image, in the image's pixels. */
export function toImagePoint(clientX: number, clientY: number, shown: { left: number; top: number; width: number; height: number }, width: number, height: number) {
  return { x: ((clientX - shown.left) / shown.width) * width, y: ((clientY - shown.top) / shown.height) * height }
}

/**
 * The CSS that shows `box` (image pixels) from the photo's preview in a square of `side` CSS pixels:
 * the box fitted whole and centred.
 */
export function cropStyle(
  box: Box,
  image: { width: number; height: number },
  preview: { url: string; width: number; height: number },
  side: number,
): { backgroundImage: string; backgroundSize: string; backgroundPosition: string; backgroundRepeat: string } {
  const scale = preview.width / image.width
  const bw = Math.max(1, box.width * scale)
  const bh = Math.max(1, box.height * scale)
  const k = side / Math.max(bw, bh)
  const left = box.x * scale * k - (side - bw * k) / 2
  const top = box.y * scale * k - (side - bh * k) / 2
  const px = (n: number) => `${Math.round(n * 100) / 100}px`
  return {
    backgroundImage: `url(${JSON.stringify(preview.url)})`,
    backgroundSize: `${px(preview.width * k)} ${px(preview.height * k)}`,
    backgroundPosition: `${px(-left)} ${px(-top)}`,
    backgroundRepeat: 'no-repeat',
  }
}
