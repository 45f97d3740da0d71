// The shape labelRegions (matte.server.ts) gives and the focus measure (matte-focus.server.ts) reads: its own
// module, so the matte imports the focus measure and nothing imports the matte back.

/** Connected regions as horizontal runs: no per-pixel label array (48 MB at 12 MP) is needed. */
export interface Regions {
  /** Each run's first pixel (y * width + x), its length and its region's label, in raster order. */
  runs: { offsets: Int32Array; lengths: Int32Array; labels: Int32Array }
  count: number
  /** Pixels in each region, by label. */
  areas: Float64Array
  /** 1 for a region that reaches the image's edge, by label. */
  touchesBorder: Uint8Array
}
