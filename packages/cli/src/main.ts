// facet: a studio's tools from the command line, on @facet-studio/sdk. One file runs on the tool's
// endpoint and is written where -o says; a folder, a glob or several files go as batches (at most the
// studio's 100 files each) whose results are unpacked into a folder. The exit code says what happened
// (exit-codes.ts); standard output carries only the paths written, standard error the rest.
import { mkdirSync, writeFileSync } from 'node:fs'
import { basename, dirname, extname, join, resolve, sep } from 'node:path'
import yauzl from 'yauzl'
import { createClient, type Batch, type FacetClient, type ToolResult } from '@facet-studio/sdk'
import { parseCommandLine, type Command } from './args'
import { errorLine, EXIT, exitCodeFor, type ExitCode } from './exit-codes'
import { expandInputs } from './inputs'
import { batchProgress } from './progress'
import { resolveSettings, type Env } from './settings'

/** The studio's most files in one batch (POST /api/batches/): more are sent as several batches. */
const BATCH_FILES_MAX = 100
export const DEFAULT_BATCH_FOLDER = 'facet-results'
const VERSION = '1.0.0'
const ZIP_RECORDS = new Set(['manifest.json', 'errors.json'])

export interface Io {
  stdout: NodeJS.WriteStream
  stderr: NodeJS.WriteStream
  env: Env
}

const EXTENSION_OF_TYPE: Record<string, string> = { 'image/png': '.png', 'image/jpeg': '.jpg', 'image/webp': '.webp', 'application/zip': '.zip' }

/** photo.jpg → photo-cutout.png, beside the input; the extension is the result's own. */
export function defaultOutputPath(input: string, suffix: string, result: Pick<ToolResult, 'filename' | 'contentType'>): string {
  const extension = (result.filename && extname(result.filename)) || EXTENSION_OF_TYPE[result.contentType.split(';')[0].trim()] || '.png'
  return join(dirname(input), `${basename(input, extname(input))}-${suffix}${extension}`)
}

/** A completed batch's zip unpacked into `folder` (its records stay out): the paths written. */
function unzipResults(zip: Buffer, folder: string): Promise<string[]> {
  const root = resolve(folder)
  return new Promise((done, fail) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, archive) => {
      if (error) return fail(error)
      const written: string[] = []
      archive.on('error', fail)
      archive.on('end', () => done(written))
      archive.on('entry', (entry: yauzl.Entry) => {
        const target = resolve(root, entry.fileName)
        // A name that would leave the folder is not written (the studio's names never do; a zip is still input).
        if (entry.fileName.endsWith('/') || ZIP_RECORDS.has(entry.fileName) || !target.startsWith(root + sep)) return archive.readEntry()
        archive.openReadStream(entry, (streamError, stream) => {
          if (streamError) return fail(streamError)
          const chunks: Buffer[] = []
          stream.on('data', (chunk: Buffer) => chunks.push(chunk))
          stream.on('error', fail)
          stream.on('end', () => {
            mkdirSync(dirname(target), { recursive: true })
            writeFileSync(target, Buffer.concat(chunks))
            written.push(join(folder, entry.fileName))
            archive.readEntry()
          })
        })
      })
      archive.readEntry()
    })
  })
}

async function runOne(client: FacetClient, command: Extract<Command, { kind: 'tool' }>, file: string, io: Io): Promise<ExitCode> {
  const result = await client.runTool(command.spec.tool, file, command.fields)
  const target = command.output ?? defaultOutputPath(file, command.spec.suffix, result)
  mkdirSync(dirname(resolve(target)), { recursive: true })
  writeFileSync(target, result.data)
  io.stdout.write(`${target}\n`)
  if (!command.global.quiet) {
    if (result.note) io.stderr.write(`note: ${result.note}\n`)
    const left = result.creditsRemaining === null ? '' : `, ${result.creditsRemaining} left`
    io.stderr.write(`${result.creditsCharged} credit${result.creditsCharged === 1 ? '' : 's'} charged${left}\n`)
  }
  return EXIT.ok
}

async function runBatches(client: FacetClient, command: Extract<Command, { kind: 'tool' }>, files: string[], io: Io): Promise<ExitCode> {
  const folder = command.output ?? DEFAULT_BATCH_FOLDER
  mkdirSync(folder, { recursive: true })
  let failed = 0
  for (let start = 0; start < files.length; start += BATCH_FILES_MAX) {
    const chunk = files.slice(start, start + BATCH_FILES_MAX)
    const accepted = await client.batches.create(command.spec.tool, chunk, command.fields)
    const progress = batchProgress(io.stderr, command.global.quiet)
    let batch: Batch
    try {
      batch = await client.batches.wait(accepted.id, { onProgress: (b) => progress.update(b) })
    } finally {
      progress.stop()
    }
    for (const path of await unzipResults(await client.batches.download(accepted.id), folder)) io.stdout.write(`${path}\n`)
    for (const item of batch.items.filter((i) => i.state === 'failed')) io.stderr.write(`failed: ${item.name}: ${item.error ?? item.status_text}\n`)
    failed += batch.failed
  }
  if (failed > 0) io.stderr.write(`${failed} of ${files.length} files failed; the others are in ${folder}\n`)
  return failed > 0 ? EXIT.partial : EXIT.ok
}

export async function main(argv: string[], io: Io): Promise<ExitCode> {
  try {
    const command = parseCommandLine(argv)
    if (command.kind === 'help') {
      io.stdout.write(`${command.text}\n`)
      return EXIT.ok
    }
    if (command.kind === 'version') {
      io.stdout.write(`facet ${VERSION}\n`)
      return EXIT.ok
    }
    // The files are checked before the key: a typo in a path is the first thing to hear about.
    const inputs = command.kind === 'tool' ? await expandInputs(command.spec.tool, command.inputs) : null
    const settings = resolveSettings(command.global, io.env)
    const client = createClient({ baseUrl: settings.url, apiKey: settings.apiKey, team: settings.team })
    if (command.kind === 'balance' || !inputs) {
      const credits = await client.balance()
      io.stdout.write(`${credits.balance}\n`)
      return EXIT.ok
    }
    if (!inputs.batch) return await runOne(client, command, inputs.files[0], io)
    return await runBatches(client, command, inputs.files, io)
  } catch (error) {
    io.stderr.write(`${errorLine(error)}\n`)
    return exitCodeFor(error)
  }
}

