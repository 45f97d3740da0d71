// One buffer holding a JSON header and named binary sections: what a run keeps for its
// corrections travels and is sealed as one piece (decision 157).
const HEADER_LENGTH_BYTES = 4

export interface Packed<Meta> {
  meta: Meta
  sections: Record<string, Buffer>
}

/** [header length][header: { meta, sections: name → [offset, length] }][sections...]. */
export function pack<Meta>(meta: Meta, sections: Record<string, Buffer | null | undefined>): Buffer {
  const present = Object.entries(sections).filter((entry): entry is [string, Buffer] => !!entry[1])
  const offsets: Record<string, [number, number]> = {}
  let at = 0
  for (const [name, bytes] of present) {
    offsets[name] = [at, bytes.byteLength]
    at += bytes.byteLength
  }
  const header = Buffer.from(JSON.stringify({ meta, sections: offsets }))
  const length = Buffer.alloc(HEADER_LENGTH_BYTES)
  length.writeUInt32BE(header.byteLength)
  return Buffer.concat([length, header, ...present.map(([, bytes]) => bytes)])
}

export function unpack<Meta>(bytes: Buffer): Packed<Meta> {
  const headerLength = bytes.readUInt32BE(0)
  const headerEnd = HEADER_LENGTH_BYTES + headerLength
  const header = JSON.parse(bytes.subarray(HEADER_LENGTH_BYTES, headerEnd).toString('utf8')) as {
    meta: Meta
    sections: Record<string, [number, number]>
  }
  const sections: Record<string, Buffer> = {}
  for (const [name, [offset, length]] of Object.entries(header.sections)) {
    sections[name] = bytes.subarray(headerEnd + offset, headerEnd + offset + length)
  }
  return { meta: header.meta, sections }
}
