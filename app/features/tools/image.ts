// The contract between the upload pipeline and the inference modules. Client-safe types only.

/** Decoded, EXIF-oriented, sRGB, 8-bit RGBA pixels (row-major, 4 bytes per pixel). */
export interface RgbaImage {
  data: Buffer
  width: number
  height: number
}

/** What every model-based tool returns: a lossless PNG without metadata. */
export interface ToolOutput {
  bytes: Buffer
  contentType: 'image/png'
  width: number
  height: number
  /** Milliseconds spent inside onnxruntime (the rest is pre- and post-processing). */
  modelMs: number
}

/**
 * Progress from inside a tool module: the phase it is in and how far into that phase (0..1). The
 * tool's runner turns phases into the spec's stage messages and the run's overall fraction.
 */
export type PhaseProgress<Phase extends string> = (phase: Phase, fraction: number) => void
