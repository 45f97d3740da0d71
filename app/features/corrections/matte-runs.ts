// The refined matte as a correction source keeps it (decision 182): its long runs of 0 (background)
// and 255 (subject) as (start, length) pairs, and the bytes between them (the soft edge) as they are.
// A matte is mostly such runs, so both parts are small, and opening it is a memset per run and one
// copy per stretch of edge: a few milliseconds at 12 MP, where inflating the whole matte (zlib level
// 1, decision 157) took 50-375 ms. Written here, not taken from a library: what is wanted is exactly
// this split (runs to fill, literals to copy), which a general-purpose codec does not expose.

/** A stretch of 0 or 255 at least this long is a run; a shorter one stays with the edge's bytes. */
export const MIN_RUN = 32
/** The top bit of a run's length word: the run is 255 (else 0). */
const OPAQUE_BIT = 0x80000000

export interface MatteRuns {
  /** Pairs (start, length | OPAQUE_BIT when 255), in order, not touching one another's bytes. */
  runs: Uint32Array
  /** The bytes outside the runs, in order. */
  literals: Uint8Array
}

/**
 * The matte split into its runs of 0 and 255 and the bytes between them. It runs in the remover's
 * run, so a run's inside is skipped four bytes at a time.
 */
export function toRuns(matte: Uint8Array): MatteRuns {
  const n = matte.length
  // Positions p with (p - lead) % 4 === 0 start a word of the matte's buffer: word (p - lead) / 4 of `words`.
  const lead = (4 - (matte.byteOffset % 4)) % 4
  const words = n > lead ? new Uint32Array(matte.buffer, matte.byteOffset + lead, (n - lead) >>> 2) : new Uint32Array(0)
  const runs: number[] = []
  const literals = new Uint8Array(n)
  let literalLength = 0
  let literalFrom = 0
  let p = 0
  while (p < n) {
    const value = matte[p]!
    if (value !== 0 && value !== 255) {
      p++
      continue
    }
    let end = p + 1
    // To a word boundary, then whole words of the value, then byte by byte to the run's end.
    while (end < n && (end - lead) & 3 && matte[end] === value) end++
    if (end >= lead && end < n && !((end - lead) & 3) && matte[end] === value) {
      const word = value === 255 ? 0xffffffff : 0
      let w = (end - lead) >>> 2
      while (w < words.length && words[w] === word) w++
      end = Math.max(end, lead + (w << 2))
    }
    while (end < n && matte[end] === value) end++
    if (end - p >= MIN_RUN) {
      literals.set(matte.subarray(literalFrom, p), literalLength)
      literalLength += p - literalFrom
      runs.push(p, (end - p) | (value === 255 ? OPAQUE_BIT : 0))
      literalFrom = end
    }
    p = end
  }
  literals.set(matte.subarray(literalFrom, n), literalLength)
  literalLength += n - literalFrom
  return { runs: Uint32Array.from(runs, (v) => v >>> 0), literals: literals.slice(0, literalLength) }
}

/** The matte of `length` bytes back from its runs and literals, into `out` when given. */
export function fromRuns({ runs, literals }: MatteRuns, length: number, out: Uint8Array = new Uint8Array(length)): Uint8Array {
  if (out.length !== length) throw new RangeError('the matte is not the size asked for')
  let at = 0
  let literal = 0
  for (let k = 0; k < runs.length; k += 2) {
    const start = runs[k]!
    const word = runs[k + 1]!
    const runLength = word & ~OPAQUE_BIT
    const gap = start - at
    if (gap < 0 || start + runLength > length || literal + gap > literals.length) throw new RangeError('the matte\'s runs do not fit')
    out.set(literals.subarray(literal, literal + gap), at)
    literal += gap
    out.fill(word & OPAQUE_BIT ? 255 : 0, start, start + runLength)
    at = start + runLength
  }
  if (literals.length - literal !== length - at) throw new RangeError('the matte\'s runs do not fit')
  out.set(literals.subarray(literal), at)
  return out
}
