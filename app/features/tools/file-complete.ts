// Whether a file holds all the bytes its own structure announces: a PNG reaches its IEND chunk, a JPEG its
// end-of-image marker after the scan, a WebP the length its RIFF header states. The header alone (all that
// is read before a run is charged) says nothing of the rest: a PNG that claims 16384×1 and then ends passed
// the door, was charged, failed in the decoder and was refunded. This walk costs microseconds and refuses it
// before the charge. Formats not listed (GIF, TIFF, AVIF) are left to the decoder, as before.

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

function pngIsComplete(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (bytes.length < 8 || PNG_SIGNATURE.some((b, i) => bytes[i] !== b)) return false
  let sawImageData = false
  // Each chunk: length (4), type (4), data (length), CRC (4). The walk stops at IEND; a chunk that runs past
  // the end of the file is a truncation.
  for (let at = 8; at + 12 <= bytes.length; ) {
    const length = view.getUint32(at)
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!)
    if (at + 12 + length > bytes.length) return false
    if (type === 'IDAT') sawImageData = true
    if (type === 'IEND') return sawImageData
    at += 12 + length
  }
  return false
}

function jpegIsComplete(bytes: Uint8Array): boolean {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return false
  // Walk the segments before the first scan by their lengths: an EXIF thumbnail inside APP1 is a whole JPEG
  // of its own, and a plain search would find its markers.
  let at = 2
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return false
    const marker = bytes[at + 1]!
    if (marker === 0xff) {
      at += 1 // fill byte
      continue
    }
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!
    if (marker === 0xda) {
      // The scan's entropy-coded data never holds 0xFF 0xD9 (a 0xFF there is stuffed with 0x00), so the last
      // end-of-image marker after the first scan closes the image. Bytes after it (some cameras append data)
      // are allowed, as decoders allow them.
      for (let i = bytes.length - 2; i >= at + 2 + length; i--) {
        if (bytes[i] === 0xff && bytes[i + 1] === 0xd9) return true
      }
      return false
    }
    at += 2 + length
  }
  return false
}

function webpIsComplete(bytes: Uint8Array): boolean {
  if (bytes.length < 12) return false
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  // RIFF's size counts everything after its own 8 bytes.
  return view.getUint32(4, true) + 8 <= bytes.length
}

/** Whether the file is whole by its own structure; `format` is sharp's name for it (png, jpeg, webp, …). */
export function isFileComplete(bytes: Uint8Array, format: string | undefined): boolean {
  if (format === 'png') return pngIsComplete(bytes)
  if (format === 'jpeg') return jpegIsComplete(bytes)
  if (format === 'webp') return webpIsComplete(bytes)
  return true
}
