// What a caller may hand the SDK as a file, turned into a Blob and a name for the multipart form.
// The studio checks the real type from the bytes, so no content type is guessed here.
import { openAsBlob } from 'node:fs'
import { basename } from 'node:path'
import { Readable } from 'node:stream'

/** A path on disk, bytes, a Blob (or File), a Node Readable or a web ReadableStream. */
export type FileInput = string | Buffer | Uint8Array | ArrayBuffer | Blob | Readable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>

export interface FormFile {
  blob: Blob
  filename: string
}

async function collect(chunks: AsyncIterable<Uint8Array | string>): Promise<Blob> {
  const parts: Uint8Array<ArrayBuffer>[] = []
  for await (const chunk of chunks) parts.push(new Uint8Array(typeof chunk === 'string' ? Buffer.from(chunk) : chunk))
  return new Blob(parts)
}

/** `fallbackName` names bytes and streams, which carry no name (the studio uses it only for the download name). */
export async function toFormFile(input: FileInput, fallbackName: string, filename?: string): Promise<FormFile> {
  if (typeof input === 'string') return { blob: await openAsBlob(input), filename: filename ?? basename(input) }
  if (input instanceof Blob) return { blob: input, filename: filename ?? ((input as File).name || fallbackName) }
  if (input instanceof ArrayBuffer) return { blob: new Blob([new Uint8Array(input)]), filename: filename ?? fallbackName }
  if (input instanceof Uint8Array) return { blob: new Blob([new Uint8Array(input)]), filename: filename ?? fallbackName }
  if (input instanceof ReadableStream) return { blob: await collect(Readable.fromWeb(input as import('node:stream/web').ReadableStream<Uint8Array>)), filename: filename ?? fallbackName }
  const path = input instanceof Readable && typeof (input as Readable & { path?: unknown }).path === 'string' ? ((input as Readable & { path: string }).path) : null
  return { blob: await collect(input), filename: filename ?? (path ? basename(path) : fallbackName) }
}
