// Writes minimal ONNX models by hand (protobuf wire format), so tests can stand in for large
// models (GFPGAN, ISNet) with the same signature. Supports nodes without attributes and float
// initializers, which is all the stand-ins need.

function varint(value: number): number[] {
  const bytes: number[] = []
  let v = value
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80)
    v = Math.floor(v / 128)
  }
  bytes.push(v)
  return bytes
}

const key = (field: number, wire: 0 | 2) => varint((field << 3) | wire)
const int = (field: number, value: number) => [...key(field, 0), ...varint(value)]
const bytesField = (field: number, payload: number[]) => [...key(field, 2), ...varint(payload.length), ...payload]
const text = (field: number, value: string) => bytesField(field, [...Buffer.from(value, 'utf8')])

const FLOAT = 1

export interface TinyNode {
  op: string
  inputs: string[]
  outputs: string[]
}

export interface TinyTensor {
  name: string
  /** Numbers are fixed dimensions, strings symbolic ones (any size). */
  shape: Array<number | string>
}

export interface TinyInitializer {
  name: string
  dims: number[]
  values: number[]
}

function valueInfo({ name, shape }: TinyTensor): number[] {
  // TensorShapeProto.Dimension: dim_value (1) or dim_param (2).
  const dims = shape.flatMap((d) => bytesField(1, typeof d === 'number' ? int(1, d) : text(2, d)))
  const tensorType = [...int(1, FLOAT), ...bytesField(2, dims)]
  return [...text(1, name), ...bytesField(2, bytesField(1, tensorType))]
}

function initializer({ name, dims, values }: TinyInitializer): number[] {
  const raw = Buffer.alloc(values.length * 4)
  values.forEach((v, i) => raw.writeFloatLE(v, i * 4))
  return [...dims.flatMap((d) => int(1, d)), ...int(2, FLOAT), ...text(8, name), ...bytesField(9, [...raw])]
}

/** An ONNX model (IR 7, opset 13) from nodes, graph inputs/outputs and float initializers. */
export function onnxModel(graph: { nodes: TinyNode[]; inputs: TinyTensor[]; outputs: TinyTensor[]; initializers?: TinyInitializer[] }): Buffer {
  const nodes = graph.nodes.flatMap((n, i) =>
    bytesField(1, [...n.inputs.flatMap((x) => text(1, x)), ...n.outputs.flatMap((x) => text(2, x)), ...text(3, `n${i}`), ...text(4, n.op)]),
  )
  const body = [
    ...nodes,
    ...text(2, 'tiny'),
    ...(graph.initializers ?? []).flatMap((t) => bytesField(5, initializer(t))),
    ...graph.inputs.flatMap((t) => bytesField(11, valueInfo(t))),
    ...graph.outputs.flatMap((t) => bytesField(12, valueInfo(t))),
  ]
  return Buffer.from([...int(1, 7), ...text(2, 'facet-studio-tests'), ...bytesField(7, body), ...bytesField(8, int(2, 13))])
}

/** A model computing `output = op(input)` for float tensors of one fixed shape. */
export function unaryOnnxModel(op: 'Neg' | 'Identity', shape: number[]): Buffer {
  return onnxModel({
    nodes: [{ op, inputs: ['input'], outputs: ['output'] }],
    inputs: [{ name: 'input', shape }],
    outputs: [{ name: 'output', shape }],
  })
}

/**
 * [1,3,S,S] → [1,1,S,S]: the mean of the three input channels (a 1×1 convolution). With `size`
 * 'dynamic', [batch,3,height,width] → [batch,1,height,width] (MODNet's signature).
 */
export function channelMeanOnnxModel(size: number | 'dynamic'): Buffer {
  const [n, h, w] = size === 'dynamic' ? ['batch', 'height', 'width'] : [1, size, size]
  return onnxModel({
    nodes: [{ op: 'Conv', inputs: ['input', 'weight'], outputs: ['output'] }],
    inputs: [{ name: 'input', shape: [n, 3, h, w] }],
    outputs: [{ name: 'output', shape: [n, 1, h, w] }],
    initializers: [{ name: 'weight', dims: [1, 3, 1, 1], values: [1 / 3, 1 / 3, 1 / 3] }],
  })
}
