// Deep network interpolation (DNI): a model whose float weights are d·a + (1−d)·b of two models with
// the same graph, as Real-ESRGAN blends its general and weak-denoise ("wdn") models into one denoise
// strength. Blending weights (not outputs) costs one model run instead of two.
//
// This reads just enough of the ONNX protobuf to find the float initializers. No protobuf or ONNX
// package is installed, and the full ONNX schema (and a code generator) would be far more than
// finding four fields: ModelProto.graph (7) → GraphProto.initializer (5) → TensorProto dims (1),
// data_type (2), float_data (4), name (8), raw_data (9), data_location (14). The blended values
// overwrite the first model's bytes in place, so every length prefix in the copy stays valid.

const WIRE_VARINT = 0
const WIRE_FIXED64 = 1
const WIRE_BYTES = 2
const WIRE_FIXED32 = 5

const MODEL_GRAPH = 7
const GRAPH_INITIALIZER = 5
const TENSOR_DIMS = 1
const TENSOR_DATA_TYPE = 2
const TENSOR_FLOAT_DATA = 4
const TENSOR_NAME = 8
const TENSOR_RAW_DATA = 9
const TENSOR_DATA_LOCATION = 14
const ONNX_FLOAT = 1
const DATA_LOCATION_EXTERNAL = 1

export class ModelBlendError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ModelBlendError'
  }
}

interface WireField {
  field: number
  wire: number
  /** The varint's value (wire type 0). */
  value: number
  /** Where the field's payload starts and ends (for wire types 1, 2 and 5). */
  start: number
  end: number
}

function readVarint(buffer: Uint8Array, at: number, label: string): { value: number; next: number } {
  let value = 0
  let scale = 1
  for (let i = at; i < buffer.length && i < at + 10; i++) {
    const byte = buffer[i]
    value += (byte & 0x7f) * scale
    scale *= 128
    if (byte < 0x80) return { value, next: i + 1 }
  }
  throw new ModelBlendError(`${label}: the model file is not a valid ONNX protobuf (a varint is cut off at byte ${at}).`)
}

/** The fields of one protobuf message between `start` and `end`, in order. */
function* fields(buffer: Uint8Array, start: number, end: number, label: string): Generator<WireField> {
  let at = start
  while (at < end) {
    const key = readVarint(buffer, at, label)
    const field = Math.floor(key.value / 8)
    const wire = key.value % 8
    at = key.next
    if (field === 0) throw new ModelBlendError(`${label}: the model file is not a valid ONNX protobuf (field number 0 at byte ${at}).`)
    let payloadStart = at
    let payloadEnd = at
    let value = 0
    if (wire === WIRE_VARINT) {
      const v = readVarint(buffer, at, label)
      value = v.value
      payloadEnd = v.next
    } else if (wire === WIRE_BYTES) {
      const length = readVarint(buffer, at, label)
      payloadStart = length.next
      payloadEnd = length.next + length.value
    } else if (wire === WIRE_FIXED64) {
      payloadEnd = at + 8
    } else if (wire === WIRE_FIXED32) {
      payloadEnd = at + 4
    } else {
      throw new ModelBlendError(`${label}: the model file is not a valid ONNX protobuf (wire type ${wire} at byte ${at}).`)
    }
    if (payloadEnd > end) throw new ModelBlendError(`${label}: the model file is truncated or corrupt (a field runs past its message at byte ${at}).`)
    yield { field, wire, value, start: payloadStart, end: payloadEnd }
    at = payloadEnd
  }
}

export interface FloatInitializer {
  name: string
  dims: number[]
  /** Byte ranges holding the tensor's little-endian float32 values, in order. */
  segments: Array<{ start: number; end: number }>
  /** Number of float values. */
  length: number
}

function readInitializer(buffer: Uint8Array, start: number, end: number, label: string): FloatInitializer | null {
  let name = ''
  let dataType = 0
  let external = false
  const dims: number[] = []
  const segments: Array<{ start: number; end: number }> = []
  for (const f of fields(buffer, start, end, label)) {
    if (f.field === TENSOR_NAME && f.wire === WIRE_BYTES) name = Buffer.from(buffer.buffer, buffer.byteOffset + f.start, f.end - f.start).toString('utf8')
    else if (f.field === TENSOR_DATA_TYPE && f.wire === WIRE_VARINT) dataType = f.value
    else if (f.field === TENSOR_DATA_LOCATION && f.wire === WIRE_VARINT) external = f.value === DATA_LOCATION_EXTERNAL
    else if (f.field === TENSOR_DIMS && f.wire === WIRE_VARINT) dims.push(f.value)
    else if (f.field === TENSOR_DIMS && f.wire === WIRE_BYTES) {
      for (let at = f.start; at < f.end; ) {
        const d = readVarint(buffer, at, label)
        dims.push(d.value)
        at = d.next
      }
    } else if ((f.field === TENSOR_RAW_DATA || f.field === TENSOR_FLOAT_DATA) && (f.wire === WIRE_BYTES || f.wire === WIRE_FIXED32)) {
      segments.push({ start: f.start, end: f.end })
    }
  }
  if (dataType !== ONNX_FLOAT) return null
  if (external) throw new ModelBlendError(`${label}: initializer "${name}" keeps its data in an external file, which blending does not support.`)
  const bytes = segments.reduce((sum, s) => sum + s.end - s.start, 0)
  if (bytes % 4 !== 0) throw new ModelBlendError(`${label}: initializer "${name}" has ${bytes} bytes of data, not a whole number of float32 values.`)
  const length = bytes / 4
  const expected = dims.reduce((product, d) => product * d, 1)
  if (length !== expected) {
    throw new ModelBlendError(`${label}: initializer "${name}" has ${length} values but its shape [${dims.join(', ')}] needs ${expected}.`)
  }
  return { name, dims, segments, length }
}

/** The float32 initializers of an ONNX model, in file order. */
export function floatInitializers(model: Uint8Array, label = 'model'): FloatInitializer[] {
  const found: FloatInitializer[] = []
  let graphs = 0
  for (const top of fields(model, 0, model.length, label)) {
    if (top.field !== MODEL_GRAPH || top.wire !== WIRE_BYTES) continue
    graphs++
    for (const g of fields(model, top.start, top.end, label)) {
      if (g.field !== GRAPH_INITIALIZER || g.wire !== WIRE_BYTES) continue
      const tensor = readInitializer(model, g.start, g.end, label)
      if (tensor) found.push(tensor)
    }
  }
  if (graphs === 0) throw new ModelBlendError(`${label}: the file has no ONNX graph.`)
  return found
}

/** Byte offsets of a tensor's float32 values. */
function* valueOffsets(tensor: FloatInitializer): Generator<number> {
  for (const s of tensor.segments) for (let at = s.start; at < s.end; at += 4) yield at
}

/**
 * A copy of model `a` whose float initializers are `weight·a + (1−weight)·b`. The two models must have
 * the same float initializers (names, shapes); anything else is refused with a ModelBlendError.
 */
export function blendModels(a: Uint8Array, b: Uint8Array, weight: number, labels: { a: string; b: string } = { a: 'model A', b: 'model B' }): Buffer {
  if (!Number.isFinite(weight) || weight < 0 || weight > 1) throw new RangeError(`The blend weight must be from 0 to 1 (got ${weight}).`)
  const tensorsA = floatInitializers(a, labels.a)
  const tensorsB = new Map(floatInitializers(b, labels.b).map((t) => [t.name, t]))
  if (tensorsA.length === 0) throw new ModelBlendError(`${labels.a}: the model has no float32 initializers to blend.`)
  if (tensorsB.size !== tensorsA.length) {
    throw new ModelBlendError(`${labels.a} has ${tensorsA.length} float initializers and ${labels.b} has ${tensorsB.size}: they are not the same network.`)
  }
  const out = Buffer.from(a)
  const outView = new DataView(out.buffer, out.byteOffset, out.byteLength)
  const viewB = new DataView(b.buffer, b.byteOffset, b.byteLength)
  for (const ta of tensorsA) {
    const tb = tensorsB.get(ta.name)
    if (!tb) throw new ModelBlendError(`${labels.b} has no initializer "${ta.name}": the two models are not the same network.`)
    if (tb.length !== ta.length || tb.dims.join(',') !== ta.dims.join(',')) {
      throw new ModelBlendError(
        `Initializer "${ta.name}" is [${ta.dims.join(', ')}] in ${labels.a} but [${tb.dims.join(', ')}] in ${labels.b}: the two models are not the same network.`,
      )
    }
    const fromB = valueOffsets(tb)
    for (const at of valueOffsets(ta)) {
      const va = outView.getFloat32(at, true)
      const vb = viewB.getFloat32(fromB.next().value as number, true)
      outView.setFloat32(at, weight * va + (1 - weight) * vb, true)
    }
  }
  return out
}
