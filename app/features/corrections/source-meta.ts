// What a stored correction source says about itself (the header of its packed sections): written by
// keep.server.ts when a run ends, read by render.server.ts when a correction opens it. Types only, in a
// module of their own so that the writer and the reader need not import each other.
import type { BackgroundRemoverOptions } from '~/features/tools/runners/background-remover.server'

export interface CutoutSourceMeta {
  kind: 'cutout'
  width: number
  height: number
  /** The remover's options as the run had them (runners/background-remover.server.ts). */
  options: BackgroundRemoverOptions
  modelWidth: number
  modelHeight: number
}

export interface FacesSourceMeta {
  kind: 'faces'
  width: number
  height: number
  blur: number
  format: string | null
}
