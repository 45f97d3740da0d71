// The correction form's fields, shared by the page (which draws them, with and without JavaScript)
// and its action (which reads them): one name for each. Client-safe and dependency-free: the page's
// script stays small (decision 148); the action's zod schema is in edit-page.server.ts.
import type { Box, EdgeSettings, FaceBox, PartDecision } from '../types'

export const FIELD = {
  /** The brush mask, a greyscale PNG at the preview size (JavaScript only). */
  mask: 'mask',
  /** Present when the edge controls were in the form: an unticked checkbox sends nothing. */
  edges: 'edges',
  feather: 'feather',
  grow: 'grow',
  decontaminate: 'decontaminate',
  /** One per face to blur, its box as "x,y,width,height" in the result's pixels. */
  face: 'face',
  addX: 'add_x',
  addY: 'add_y',
  addWidth: 'add_width',
  addHeight: 'add_height',
} as const

/** The keep/remove choice of one matte part. */
export function partField(id: string): string {
  return `part_${id}`
}

export const PART_FIELD_PREFIX = 'part_'

export function faceValue(box: Box): string {
  return [box.x, box.y, box.width, box.height].map((n) => Math.round(n)).join(',')
}

/** A face field's box, or null when it is not four whole numbers. */
export function parseFaceValue(value: string): Box | null {
  const parts = value.split(',')
  if (parts.length !== 4 || !parts.every((p) => /^\s*-?\d+\s*$/.test(p))) return null
  const [x, y, width, height] = parts.map(Number) as [number, number, number, number]
  return { x, y, width, height }
}

export function sameBox(a: Box, b: Box): boolean {
  return Math.round(a.x) === Math.round(b.x) && Math.round(a.y) === Math.round(b.y) && Math.round(a.width) === Math.round(b.width) && Math.round(a.height) === Math.round(b.height)
}

/** A row of the faces' list: a detected face (blurred or not) or a box the user drew. */
export interface FaceRow {
  box: FaceBox
  detected: boolean
  blurred: boolean
}

/** The detected faces in the detector's order, then the user's own boxes, each with whether it is blurred now. */
export function faceRows(detected: FaceBox[], blurred: FaceBox[]): FaceRow[] {
  const rows: FaceRow[] = detected.map((box) => ({ box, detected: true, blurred: blurred.some((b) => sameBox(b, box)) }))
  for (const box of blurred) {
    if (!detected.some((d) => sameBox(d, box))) rows.push({ box, detected: false, blurred: true })
  }
  return rows
}

/** The part's choice shown in the form: the user's, else what the refinement did. */
export function shownDecision(part: { decision: PartDecision | null; keptByRefinement: boolean }): PartDecision {
  return part.decision ?? (part.keptByRefinement ? 'keep' : 'remove')
}

export function edgesEqual(a: EdgeSettings, b: EdgeSettings): boolean {
  return a.feather === b.feather && a.grow === b.grow && a.decontaminate === b.decontaminate
}

export const CORRECTION_FREE = 'Corrections are free: no model runs again and no credit is charged.'
export const ADD_BOX_HINT = 'In pixels of the image: x and y are the top-left corner, measured from the image’s top-left.'
