// GET /api/models/: every model the tools know, with what an operator and a client ask about it:
// installed or not, usable (its licence allowed), licence, size, commercial use, and which
// background `model` choice lands on it.
import { statSync } from 'node:fs'
import { MODELS } from './manifest'
import { modelPath, modelStatus } from './registry.server'
import { CHOICES_BY_MODEL } from './segmenters.server'

export interface ModelListing {
  id: string
  task: string
  tools: string[]
  optional: boolean
  installed: boolean
  /** Installed and allowed by its licence (ALLOW_NONCOMMERCIAL_MODELS for non-commercial weights). */
  usable: boolean
  license: string
  commercial_use: boolean
  /** The installed file's size, else the manifest's pinned size; null when neither is known. */
  bytes: number | null
  /** The download's approximate size when its exact bytes are not pinned. */
  approx_megabytes: number | null
  /** The background remover's `model` choices this model answers when installed. */
  choices: string[]
  /** Why an installed model is not used, for the operator. */
  note: string | null
}

export async function listModels(): Promise<ModelListing[]> {
  const states = new Map((await modelStatus()).map((s) => [s.id, s]))
  return MODELS.map((m) => {
    const state = states.get(m.id)!
    return {
      id: m.id,
      task: m.task,
      tools: [...m.tools],
      optional: m.optional,
      installed: state.installed,
      usable: state.usable,
      license: m.license,
      commercial_use: m.commercialUse,
      bytes: state.installed ? statSync(modelPath(m.id)).size : m.bytes,
      approx_megabytes: m.approxMegabytes ?? null,
      choices: [...(CHOICES_BY_MODEL[m.id] ?? [])],
      note: state.note ?? null,
    }
  })
}
