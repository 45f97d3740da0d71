// The contract between the request side (web: parse, check, charge, enqueue) and the run side
// (worker: decode, run the models, encode). One runner per tool, in runners/<slug>.server.ts, owns
// its option schema, its checks, its run and its output naming; nothing else branches on the tool.
import type { ToolSlug } from '~/catalog/tools'

/**
 * What a running tool reports: `fraction` (0..1) of the work this run has done, from the work itself
 * (tiles, faces, stages passed), and optionally the stage message it is in (one of the tool's spec
 * steps in catalog.ts). The job layer maps it onto the spec's percentages and stores it, throttled.
 */
export type ReportProgress = (fraction: number, stage?: string) => void

/** What the web side learned from the bytes before charging (no full decode). */
export interface Inspected {
  width: number
  height: number
  /** Told to the caller in X-Facet-Note (for example: only the first frame of an animation was used). */
  notes: string[]
  /**
   * What the checks computed that the run can take over when it runs in the same process (the
   * sanitised SVG): handed to `run` as `prepared` for a run taken where it was admitted
   * (docs/decisions/124), kept in memory only (a worker elsewhere starts from the bytes).
   */
  prepared?: unknown
}

export interface RunInput<Options> {
  /** The uploaded file's bytes, exactly as received (the worker may be another machine). */
  bytes: Buffer
  /** The tool's optional second file (`secondFile`), checked like the first; null when none was sent. */
  secondBytes?: Buffer | null
  options: Options
  signal: AbortSignal
  progress: ReportProgress
  /** `inspect`'s `prepared` for these bytes and options, when the run is in the process that inspected them. */
  prepared?: unknown
  /**
   * Called once the input has been decoded (or, for an SVG, sanitised), before any model work. A
   * caller that charges late (the request path) charges here, so a file that does not decode costs nothing.
   */
  decoded?: () => Promise<void>
}

/** A subject's bounding box in the result, in the result's pixels. */
export interface ForegroundBox {
  top: number
  left: number
  width: number
  height: number
}

export interface CutoutLayout {
  width: number
  height: number
  /** Null when no subject was found. */
  foreground: ForegroundBox | null
}

export interface Delivered {
  bytes: Buffer
  contentType: string
  /** Time inside the model (or resvg), for tool_runs. */
  modelMs: number | null
  facesFound?: number
  gfpganAvailable?: boolean
  /** Told to the caller in X-Facet-Note (for example a model that was missing and replaced). */
  note?: string | null
  /** The model id that made the result (X-Facet-Model, recorded with the run) when the tool has a choice of models. */
  model?: string | null
  /** A composed cutout's size and where its subject ended up (the remover); kept with the job. */
  layout?: CutoutLayout | null
  /** What a correction needs besides the output (decision 157): stored sealed with the result, in the same transaction. */
  edit?: KeptForCorrection | null
}

/** Opaque to the job layer: made by features/corrections/keep.server.ts, read back by its store. */
export interface KeptForCorrection {
  kind: 'cutout' | 'faces'
  /** What the editor lists without opening the seal (sizes, parts, detected faces). */
  facts: unknown
  /** The packed source (upload, mattes, colours, options), sealed when stored. */
  source: Buffer
  /** The same, unpacked and decoded, for a correction in this process (held in memory only, not written to the database; decision 169). */
  opened?: unknown
}

export interface ToolRunner<Options> {
  slug: ToolSlug
  /** The multipart fields besides the file that this tool reads (unknown fields are ignored). */
  optionFields: readonly string[]
  /**
   * An optional second image the tool reads besides its file (the remover's background image): its
   * multipart field, and how its presence is written into the options. It gets the same real-type
   * and pixel-limit checks as the file, and travels sealed with it.
   */
  secondFile?: { field: string; label: string; attach(options: Options, bytes: Buffer): Options }
  /**
   * The option fields as sent → options, or a ToolError(400) with the message to show. Options are
   * plain JSON (they travel in the job's data to the worker).
   */
  parseOptions(fields: Record<string, string>): Promise<Options>
  /** Every check that needs no decode: the real type, the header's pixel limits, SVG sanitising, output size. Throws ToolError. */
  inspect(bytes: Buffer, options: Options): Promise<Inspected>
  /** Decode, run, encode. Runs on a worker; throws ToolError for a refusal, anything else is a failure. */
  run(input: RunInput<Options>): Promise<Delivered>
  /** The download's file name, from the options and the client's file name (display data only). */
  outputName(options: Options, originalName: string): string
  /** When the run delivered but must not be charged (no face found): the refund's reason. */
  refundReason?(delivered: Delivered): string | null
  /**
   * How the /api endpoint answers a delivered run: the file itself (the default), or JSON with a link
   * to the stored result (spec §7: the restorer's restored_url).
   */
  answer?: 'file' | 'link'
  /** The model this process runs the tool with now (the `model` label of the run metrics). */
  model(): Promise<string>
  /** What the answer says about the engine even when the run failed (the restorer's gfpgan_available). */
  engine?(): { gfpganAvailable: boolean }
}
