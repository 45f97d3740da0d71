// The committed model manifest (models/manifest.json), typed. Client-safe: no file access here.
import manifestJson from '../../../../models/manifest.json'
import type { ToolSlug } from '../../../catalog/tools'

export type Dimension = number | string

export interface TensorSignature {
  name: string
  type: string
  /** Numbers are fixed dimensions; strings are symbolic (any size). */
  shape: Dimension[]
}

export interface ModelEntry {
  id: string
  file: string
  task: string
  tools: ToolSlug[]
  optional: boolean
  license: string
  /** False when the weights' licence forbids commercial use: such a model loads only with ALLOW_NONCOMMERCIAL_MODELS=true. */
  commercialUse: boolean
  licenseNote: string
  url: string | null
  source: string
  /** Hash of the vetted copy (the one MODELS_FROM folders carry); null when none is pinned. */
  sha256: string | null
  /** Hash of the file at `url` when it is known; null means a download is checked by signature only. */
  urlSha256: string | null
  bytes: number | null
  /** The download's size in MB when the exact bytes are not pinned (for listings). */
  approxMegabytes?: number
  /** 'positional': other exports name tensors differently, so code and checks use the first input/output. */
  names: 'exact' | 'positional'
  inputs: TensorSignature[]
  outputs: TensorSignature[]
}

export const MODELS: readonly ModelEntry[] = (manifestJson as unknown as { models: ModelEntry[] }).models

export function modelEntry(id: string): ModelEntry {
  const entry = MODELS.find((m) => m.id === id)
  if (!entry) throw new Error(`Unknown model id "${id}" (not in models/manifest.json)`)
  return entry
}

/** Hashes a file may have and still count as intact; empty when none is pinned. */
export function knownHashes(entry: ModelEntry): string[] {
  return [entry.sha256, entry.urlSha256].filter((h): h is string => typeof h === 'string')
}
