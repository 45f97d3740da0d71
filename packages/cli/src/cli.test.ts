// The command line's pure parts: reading the arguments, where the key and studio come from, which files
// a folder or a glob names, the output's name, and the exit code of each kind of outcome.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { FacetConnectionError, FacetError, type Batch } from '@facet-studio/sdk'
import { describe, expect, it } from 'vitest'
import { parseCommandLine } from './args'
import { errorLine, EXIT, exitCodeFor, UsageError } from './exit-codes'
import { expandInputs } from './inputs'
import { defaultOutputPath } from './main'
import { batchProgress } from './progress'
import { DEFAULT_URL, resolveSettings } from './settings'

describe('parseCommandLine', () => {
  it('maps each option to its endpoint field, with the command\'s defaults', () => {
    const cut = parseCommandLine(['remove-bg', 'photo.jpg', '-o', 'cut.png', '--model', 'quality', '--format', 'webp', '--bg', '#fff'])
    expect(cut).toMatchObject({ kind: 'tool', name: 'remove-bg', inputs: ['photo.jpg'], output: 'cut.png', fields: { model: 'quality', format: 'webp', background: '#fff' } })
    expect(parseCommandLine(['blur', 'a.png', 'b.png'])).toMatchObject({ inputs: ['a.png', 'b.png'], fields: { blur: '32' } })
    expect(parseCommandLine(['blur', 'a.png', '--blur', '24'])).toMatchObject({ fields: { blur: '24' } })
    expect(parseCommandLine(['svg', 'logo.svg', '--scale', '2'])).toMatchObject({ spec: { tool: 'svg-converter' }, fields: { format: 'png', scale: '2' } })
    expect(parseCommandLine(['balance', '--team', 't1', '-q'])).toEqual({ kind: 'balance', global: { config: undefined, url: undefined, team: 't1', quiet: true } })
  })

  it('answers help and version, and refuses what it does not know as a usage error', () => {
    expect(parseCommandLine([]).kind).toBe('help')
    expect(parseCommandLine(['enhance', '--help']).kind).toBe('help')
    expect(parseCommandLine(['--version']).kind).toBe('version')
    expect(() => parseCommandLine(['cutout', 'a.png'])).toThrow(/unknown command "cutout"/)
    expect(() => parseCommandLine(['remove-bg', 'a.png', '--blur', '24'])).toThrow(/Unknown option '--blur'/)
    expect(() => parseCommandLine(['remove-bg'])).toThrow(/needs a file/)
    expect(() => parseCommandLine(['remove-bg', 'a.png', '--model'])).toThrow(UsageError)
    expect(() => parseCommandLine(['balance', 'a.png'])).toThrow(/no file/)
  })
})

describe('resolveSettings', () => {
  const folder = mkdtempSync(join(tmpdir(), 'facet-cli-'))
  const config = join(folder, 'config.json')
  writeFileSync(config, JSON.stringify({ apiKey: 'fs_test_fromfile', url: 'http://studio.example:8080', team: 'team-file' }))

  it('takes the key and URL from the environment first, then the config file, then the default URL', () => {
    expect(resolveSettings({ quiet: false }, { FACET_API_KEY: 'fs_test_env', XDG_CONFIG_HOME: join(folder, 'none') })).toEqual({ url: DEFAULT_URL, apiKey: 'fs_test_env' })
    expect(resolveSettings({ quiet: false, config }, {})).toEqual({ url: 'http://studio.example:8080', apiKey: 'fs_test_fromfile', team: 'team-file' })
    expect(resolveSettings({ quiet: false, config, url: 'http://other:1' }, { FACET_API_KEY: 'fs_test_env', FACET_URL: 'http://env:2' })).toMatchObject({ url: 'http://other:1', apiKey: 'fs_test_env' })
    mkdirSync(join(folder, 'xdg', 'facet'), { recursive: true })
    writeFileSync(join(folder, 'xdg', 'facet', 'config.json'), JSON.stringify({ apiKey: 'fs_test_xdg' }))
    expect(resolveSettings({ quiet: false }, { XDG_CONFIG_HOME: join(folder, 'xdg') }).apiKey).toBe('fs_test_xdg')
  })

  it('says how to give a key when there is none, and names a config file it cannot use', () => {
    expect(() => resolveSettings({ quiet: false }, { XDG_CONFIG_HOME: join(folder, 'none') })).toThrow(/no API key: set FACET_API_KEY/)
    expect(() => resolveSettings({ quiet: false, config: join(folder, 'missing.json') }, {})).toThrow(/cannot read the config file/)
    writeFileSync(join(folder, 'bad.json'), '{apiKey:')
    expect(() => resolveSettings({ quiet: false, config: join(folder, 'bad.json') }, {})).toThrow(/is not JSON/)
    expect(() => resolveSettings({ quiet: false, url: 'localhost 3000' }, { FACET_API_KEY: 'k', XDG_CONFIG_HOME: join(folder, 'none') })).toThrow(/is not a URL/)
  })
})

describe('expandInputs', () => {
  const folder = mkdtempSync(join(tmpdir(), 'facet-inputs-'))
  for (const name of ['b.jpg', 'a.PNG', '.hidden.png', 'notes.txt', 'logo.svg']) writeFileSync(join(folder, name), 'x')
  mkdirSync(join(folder, 'sub'))
  writeFileSync(join(folder, 'sub', 'c.webp'), 'x')

  it('one file runs alone; a folder takes its image files (not hidden ones, not subfolders) as a batch', async () => {
    expect(await expandInputs('background-remover', [join(folder, 'b.jpg')])).toEqual({ files: [join(folder, 'b.jpg')], batch: false })
    expect(await expandInputs('background-remover', [folder])).toEqual({ files: [join(folder, 'a.PNG'), join(folder, 'b.jpg')], batch: true })
    expect(await expandInputs('svg-converter', [folder])).toEqual({ files: [join(folder, 'logo.svg')], batch: true })
  })

  it('a glob is a batch; a path that names nothing is a usage error', async () => {
    expect(await expandInputs('face-blurrer', [`${folder}/**/*.{jpg,webp}`])).toEqual({ files: [join(folder, 'b.jpg'), join(folder, 'sub', 'c.webp')], batch: true })
    await expect(expandInputs('face-blurrer', [join(folder, 'missing.jpg')])).rejects.toThrow(/no such file or folder/)
    await expect(expandInputs('face-blurrer', [`${folder}/*.gif`])).rejects.toThrow(/no image file matches/)
  })
})

it('names a result beside its input with the result\'s own extension', () => {
  expect(defaultOutputPath('shots/photo.jpg', 'cutout', { filename: 'photo.png', contentType: 'image/png' })).toBe(join('shots', 'photo-cutout.png'))
  expect(defaultOutputPath('photo.jpg', 'blurred', { filename: null, contentType: 'image/webp' })).toBe('photo-blurred.webp')
})

it('gives each kind of outcome its exit code, and prints the studio\'s own message', () => {
  expect(exitCodeFor(new UsageError('no file'))).toBe(EXIT.usage)
  const refusal = new FacetError(402, 'Not enough credits.', { remaining: 0 })
  expect(exitCodeFor(refusal)).toBe(EXIT.refused)
  expect(exitCodeFor(new FacetError(503, 'The studio is busy.', { retryAfter: 30 }))).toBe(EXIT.failed)
  expect(exitCodeFor(new FacetConnectionError('http://localhost:3000', new Error('connect ECONNREFUSED')))).toBe(EXIT.failed)
  expect(errorLine(refusal)).toBe('facet: the studio answered 402: Not enough credits.')
  expect(errorLine(new FacetError(429, 'Too many requests.', { retryAfter: 12 }))).toBe('facet: the studio answered 429: Too many requests. (try again in 12 s)')
  expect(new Set(Object.values(EXIT)).size).toBe(Object.keys(EXIT).length)
})

describe('batchProgress', () => {
  const batch = (done: number, failed: number) => ({ id: 'b', tool: 'background-remover', status: 'running', total: 3, skipped: [], done, failed, no_face: 0, items: [] }) as Batch
  function stream(isTTY: boolean) {
    const written: string[] = []
    return { written, stream: Object.assign(new PassThrough(), { isTTY, columns: 80, write: (chunk: string) => written.push(chunk) > 0 }) as unknown as NodeJS.WriteStream }
  }

  it('writes a plain line each time a file ends when the output is not a terminal', () => {
    const plain = stream(false)
    const progress = batchProgress(plain.stream, false)
    for (const [done, failed] of [[0, 0], [1, 0], [1, 0], [2, 1]]) progress.update(batch(done, failed))
    expect(plain.written).toEqual(['0/3 files done\n', '1/3 files done\n', '3/3 files done, 1 failed\n'])
  })

  it('draws a bar on a terminal, and nothing at all when quiet', () => {
    const terminal = stream(true)
    const bar = batchProgress(terminal.stream, false)
    bar.update(batch(2, 0))
    bar.stop()
    expect(terminal.written.join('')).toContain('2/3 files | 0 failed')
    const quiet = stream(true)
    batchProgress(quiet.stream, true).update(batch(1, 0))
    expect(quiet.written).toEqual([])
  })
})
