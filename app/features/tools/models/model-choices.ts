// The background remover's `model` choice, as requests and screens name it (client-safe: the
// screens' select draws these; models/segmenters.server.ts maps each to an installed model).
export const MODEL_CHOICES = ['auto', 'fast', 'quality', 'portrait'] as const
export type ModelChoice = (typeof MODEL_CHOICES)[number]

/** The select's wording, one line per choice. */
export const MODEL_CHOICE_LABELS: Record<ModelChoice, string> = {
  auto: 'Automatic (best installed)',
  fast: 'Fast (U²-Netp)',
  quality: 'Best quality (BiRefNet-lite or ISNet)',
  portrait: 'Portrait (MODNet, for people)',
}

/** Each background model's name as the screens and notes show it, by manifest id. */
export const MODEL_NAMES: Record<string, string> = {
  u2netp: 'U²-Netp',
  'isnet-general-use': 'ISNet general-use',
  'birefnet-lite': 'BiRefNet-lite',
  modnet: 'MODNet',
}

/** What a result says about the model that made it. */
export function madeWith(modelId: string): string {
  return `Cut out by ${MODEL_NAMES[modelId] ?? modelId}.`
}
