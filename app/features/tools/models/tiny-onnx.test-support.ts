// Writes a minimal ONNX model by hand (protobuf wire format), so tests can stand in for a large
// model with the same signature: one unary operator from `input` to `output`.

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

function valueInfo(name: string, shape: number[]): number[] {
  const dims = shape.flatMap((d) => bytesField(1, int(1, d)))
  const tensorType = [...int(1, FLOAT), ...bytesField(2, dims)]
  return [...text(1, name), ...bytesField(2, bytesField(1, tensorType))]
}

/** A model computing `output = op(input)` for float tensors of one fixed shape (opset 13). */
export function unaryOnnxModel(op: 'Neg' | 'Identity', shape: number[], names = { input: 'input', output: 'output' }): Buffer {
  const node = [...text(1, names.input), ...text(2, names.output), ...text(3, 'op'), ...text(4, op)]
  const graph = [
    ...bytesField(1, node),
    ...text(2, 'tiny'),
    ...bytesField(11, valueInfo(names.input, shape)),
    ...bytesField(12, valueInfo(names.output, shape)),
  ]
  const model = [...int(1, 7), ...text(2, 'facet-studio-tests'), ...bytesField(7, graph), ...bytesField(8, int(2, 13))]
  return Buffer.from(model)
}
