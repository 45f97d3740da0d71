// Full-resolution clean-up of a segmentation matte: keep the subject's big connected parts,
// fill holes the model left inside it, and keep the edge soft only in a narrow band.
import sharp from 'sharp'

export interface MatteRefinement {
  /** Components smaller than this share of the largest one are dropped as specks. */
  minComponentShare: number
  /** Gaussian sigma (px) of the soft band along the edge. */
  edgeSigma: number
  /** A hole whose mean colour is this close (RGB distance) to a uniform backdrop is real background, kept see-through. */
  backdropDistance: number
}

const THRESHOLD = 128

/** Labels 8-connected foreground components; returns labels (0 = background) and each label's area. */
function labelComponents(binary: Uint8Array, width: number, height: number): { labels: Int32Array; areas: number[] } {
  const labels = new Int32Array(width * height)
  const areas = [0]
  const queue = new Int32Array(width * height)
  for (let start = 0; start < binary.length; start++) {
    if (!binary[start] || labels[start]) continue
    const label = areas.length
    let head = 0
    let tail = 0
    queue[tail++] = start
    labels[start] = label
    while (head < tail) {
      const p = queue[head++]
      const x = p % width
      const y = (p - x) / width
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy
        if (ny < 0 || ny >= height) continue
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx
          if (nx < 0 || nx >= width) continue
          const q = ny * width + nx
          if (binary[q] && !labels[q]) {
            labels[q] = label
            queue[tail++] = q
          }
        }
      }
    }
    areas.push(tail)
  }
  return { labels, areas }
}

/** Background pixels (4-connected) that the backdrop cannot reach from the border: holes. Labels each hole. */
function labelHoles(binary: Uint8Array, width: number, height: number): { holes: Int32Array; count: number; outside: Uint8Array } {
  const outside = new Uint8Array(width * height)
  const queue = new Int32Array(width * height)
  let tail = 0
  const seed = (p: number) => {
    if (!binary[p] && !outside[p]) {
      outside[p] = 1
      queue[tail++] = p
    }
  }
  for (let x = 0; x < width; x++) {
    seed(x)
    seed((height - 1) * width + x)
  }
  for (let y = 0; y < height; y++) {
    seed(y * width)
    seed(y * width + width - 1)
  }
  // Breadth-first spread over the queue; `test` says whether a neighbour joins, `mark` records it.
  const spread = (mark: (q: number) => void, test: (q: number) => boolean) => {
    let head = 0
    while (head < tail) {
      const p = queue[head++]
      const x = p % width
      if (x > 0 && test(p - 1)) mark(p - 1)
      if (x < width - 1 && test(p + 1)) mark(p + 1)
      if (p >= width && test(p - width)) mark(p - width)
      if (p < width * (height - 1) && test(p + width)) mark(p + width)
    }
  }
  spread((q) => { outside[q] = 1; queue[tail++] = q }, (q) => !binary[q] && !outside[q])
  const holes = new Int32Array(width * height)
  let count = 0
  for (let p = 0; p < binary.length; p++) {
    if (binary[p] || outside[p] || holes[p]) continue
    count++
    tail = 0
    holes[p] = count
    queue[tail++] = p
    spread((q) => { holes[q] = count; queue[tail++] = q }, (q) => !binary[q] && !outside[q] && !holes[q])
  }
  return { holes, count, outside }
}

/** Mean and spread of the colours on the image border that the matte calls background. */
function backdropColour(rgba: Buffer, outside: Uint8Array, width: number, height: number): { mean: number[]; spread: number } | null {
  const sums = [0, 0, 0]
  const squares = [0, 0, 0]
  let n = 0
  const add = (p: number) => {
    if (!outside[p]) return
    for (let k = 0; k < 3; k++) {
      const v = rgba[p * 4 + k]
      sums[k] += v
      squares[k] += v * v
    }
    n++
  }
  for (let x = 0; x < width; x++) {
    add(x)
    add((height - 1) * width + x)
  }
  for (let y = 1; y < height - 1; y++) {
    add(y * width)
    add(y * width + width - 1)
  }
  if (n === 0) return null
  const mean = sums.map((s) => s / n)
  const spread = Math.sqrt(squares.reduce((acc, s, k) => acc + s / n - mean[k] * mean[k], 0))
  return { mean, spread }
}

/**
 * Refines a soft matte (0..255, already at the image's size) in place and returns it.
 * `rgba` is the image itself, used to tell holes that show the backdrop from holes in the subject.
 */
export async function refineMatte(soft: Buffer, rgba: Buffer, width: number, height: number, options: MatteRefinement): Promise<Buffer> {
  const size = width * height
  const binary = new Uint8Array(size)
  for (let p = 0; p < size; p++) binary[p] = soft[p] >= THRESHOLD ? 1 : 0

  // 1. Keep the largest component and any other big one; specks elsewhere are noise.
  const { labels, areas } = labelComponents(binary, width, height)
  const largest = Math.max(0, ...areas.slice(1))
  if (largest === 0) return soft
  const keep = areas.map((a, i) => i > 0 && a >= largest * options.minComponentShare)
  for (let p = 0; p < size; p++) {
    if (binary[p] && !keep[labels[p]]) {
      binary[p] = 0
      soft[p] = 0
    }
  }

  // 2. Fill holes the backdrop cannot reach, unless a hole plainly shows a uniform backdrop (a handle, a ring).
  const { holes, count, outside } = labelHoles(binary, width, height)
  if (count > 0) {
    const backdrop = backdropColour(rgba, outside, width, height)
    const sums = new Float64Array(count * 3 + 3)
    const counts = new Float64Array(count + 1)
    for (let p = 0; p < size; p++) {
      const h = holes[p]
      if (!h) continue
      counts[h]++
      for (let k = 0; k < 3; k++) sums[h * 3 + k] += rgba[p * 4 + k]
    }
    const fill = new Uint8Array(count + 1)
    for (let h = 1; h <= count; h++) {
      let showsBackdrop = false
      if (backdrop && backdrop.spread < options.backdropDistance) {
        const d = Math.hypot(...[0, 1, 2].map((k) => sums[h * 3 + k] / counts[h] - backdrop.mean[k]))
        showsBackdrop = d < options.backdropDistance
      }
      fill[h] = showsBackdrop ? 0 : 1
    }
    for (let p = 0; p < size; p++) if (holes[p] && fill[holes[p]]) binary[p] = 1
  }

  // 3. Edges: a blurred copy of the binary mask is 255 deep inside, 0 far outside and in between only
  //    near the outline. Inside, alpha is at least that; outside, at most that; so the model's soft
  //    values survive only in that band.
  const mask = Buffer.allocUnsafe(size)
  for (let p = 0; p < size; p++) mask[p] = binary[p] ? 255 : 0
  const band = await sharp(mask, { raw: { width, height, channels: 1 } }).blur(Math.max(0.3, options.edgeSigma)).toColourspace('b-w').raw().toBuffer()
  for (let p = 0; p < size; p++) soft[p] = binary[p] ? Math.max(soft[p], band[p]) : Math.min(soft[p], band[p])
  return soft
}
