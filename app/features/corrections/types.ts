// The contract between the corrections' server side (corrections.server.ts) and its pages: what a
// result that can be corrected looks like, and what a correction sends. Client-safe: no server imports.

import type { EditKind } from '~/catalog/corrections'

// Which tools are editable and where their page is: in the catalog, which the tools' links read too.
export { EDITABLE_TOOLS, editPath, isEditable, type EditableTool, type EditKind } from '~/catalog/corrections'

export interface EdgeSettings {
  /** 0..20 px: the blur of the alpha's edge. */
  feather: number
  /** -20..20 px: the alpha grows (dilated) or, negative, shrinks (eroded). */
  grow: number
  /** On: the colours the refinement unmixed from the background; off: the photo's own colours. */
  decontaminate: boolean
}

export const DEFAULT_EDGES: EdgeSettings = { feather: 0, grow: 0, decontaminate: true }
export const EDGE_LIMITS = { feather: { min: 0, max: 20 }, grow: { min: -20, max: 20 } } as const

/** A rectangle in the result's pixels. */
export interface Box {
  x: number
  y: number
  width: number
  height: number
}

/** A face to blur; `score` is the detector's confidence, null for a box drawn by the user. */
export interface FaceBox extends Box {
  score: number | null
}

export type PartDecision = 'keep' | 'remove'

/** A connected region of the model's matte (mean alpha >= 0.3 over at least 0.1 % of the image). */
export interface MattePart {
  id: string
  box: Box
  /** Its pixels. */
  area: number
  /** 0..1 over its pixels, in the model's matte. */
  meanAlpha: number
  /** The refined matte holds it (alpha >= 128 over at least half its pixels). */
  keptByRefinement: boolean
}

export interface EditView {
  jobId: string
  kind: EditKind
  tool: 'background-remover' | 'face-blurrer'
  /** The result's size: the size a mask has. */
  width: number
  height: number
  filename: string
  /** The current (corrected) result, /api/results/... as today. */
  resultUrl: string
  /** The source photo, long side <= EDIT_PREVIEW_MAX_SIDE, JPEG. */
  photoPreviewUrl: string
  /** Cutout: the alpha before the brush (part decisions and edges applied) at the preview size, greyscale PNG; the editor draws the stored strokes (maskPreviewUrl) over it. */
  mattePreviewUrl: string | null
  /** Cutout: the user's stored brush mask at the preview size, or null when none. */
  maskPreviewUrl: string | null
  previewWidth: number
  previewHeight: number
  /** Cutout; [] for faces. */
  parts: Array<MattePart & { decision: PartDecision | null; thumbnailUrl: string }>
  /** Faces: as the detector found them. */
  detectedFaces: FaceBox[]
  /** Faces: the boxes blurred now (after corrections). */
  faces: FaceBox[]
  /** Cutout: current. */
  edges: EdgeSettings
  corrected: boolean
  /** Faces: the run's radius. */
  blurRadius: number | null
  expiresAt: string
}

export const EDIT_PREVIEW_MAX_SIDE = 1024

/**
 * One of the editor's pictures (GET /api/jobs/<id>/corrections/preview/<which>): photo, matte, mask,
 * result, part-<id>, face-<index>.
 */
export function editPreviewUrl(jobId: string, which: string): string {
  return `/api/jobs/${jobId}/corrections/preview/${which}`
}

/**
 * One correction describes the whole of it: a field left out means none (mask), the defaults
 * (edges' missing fields), no decisions (parts), the detected boxes (faces). A cutout takes mask,
 * edges and parts; a face-blur result faces only (the other kind's fields answer 400).
 */
export interface CorrectionInput {
  /** Greyscale PNG: white restores, black removes, 128 leaves the matte. The result's size, or a smaller one of the
   *  same aspect ratio (±1 px) that is scaled up ("draw on a preview, apply at full size"). 'keep': the stored mask stays. */
  mask?: Buffer | 'keep'
  edges?: Partial<EdgeSettings>
  parts?: Record<string, PartDecision>
  faces?: Box[]
}
