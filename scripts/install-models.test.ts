import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { modelEntry } from '../app/features/tools/models/manifest'
import { channelMeanOnnxModel } from '../app/features/tools/models/tiny-onnx.test-support'

vi.setConfig({ testTimeout: 120_000 })

const ROOT = path.resolve(__dirname, '..')
const INSTALLED = path.join(ROOT, 'models')
const REQUIRED = ['yunet', 'u2netp', 'realesr-general-x4v3']
const temporary: string[] = []

function folder(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  temporary.push(dir)
  return dir
}

function install(env: Record<string, string | undefined>, ...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/install-models.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, MODELS_FROM: undefined, ...env, DATA_DIR: folder('facet-install-data-') },
    encoding: 'utf8',
  })
  return { code: result.status, out: result.stdout + result.stderr }
}

/** A MODELS_FROM folder holding the required models (links to the installed copies). */
function sourceFolder(): string {
  const dir = folder('facet-models-from-')
  for (const id of REQUIRED) {
    const file = modelEntry(id).file
    if (!existsSync(path.join(INSTALLED, file))) throw new Error(`Install the models first: ${file} is missing`)
    symlinkSync(path.join(INSTALLED, file), path.join(dir, file))
  }
  return dir
}

afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true })
})

describe('scripts/install-models.ts', () => {
  it('installs the required models from MODELS_FROM, then finds them intact on the next run', async () => {
    const target = folder('facet-models-')
    const first = install({ MODELS_FROM: sourceFolder(), MODELS_DIR: target }, '--if-missing')
    expect(first.code, first.out).toBe(0)
    for (const id of REQUIRED) expect(first.out).toMatch(new RegExp(`${id}\\s.*installed\\s.*sha256 pinned, signature ok`))
    // Optional models without a source are skipped, not failures.
    expect(first.out).toMatch(/gfpgan\s.*optional\s+skipped/)
    expect(readdirSync(target).sort()).toEqual(REQUIRED.map((id) => modelEntry(id).file).sort())

    const second = install({ MODELS_DIR: target }, '--if-missing')
    expect(second.code, second.out).toBe(0)
    for (const id of REQUIRED) expect(second.out).toMatch(new RegExp(`${id}\\s.*ok\\s.*already installed`))
  })

  it('refuses a corrupt file, leaves nothing behind and names the model and the command', () => {
    const source = sourceFolder()
    const u2netp = modelEntry('u2netp').file
    rmSync(path.join(source, u2netp))
    writeFileSync(path.join(source, u2netp), 'not an onnx model')
    const target = folder('facet-models-')
    const result = install({ MODELS_FROM: source, MODELS_DIR: target }, '--if-missing')
    expect(result.code).toBe(1)
    expect(result.out).toMatch(/Required model\(s\) not installed: u2netp \(bg-u2netp\.onnx\)/)
    expect(result.out).toMatch(/sha256 .* matches no pinned hash/)
    expect(result.out).toContain('npm run models')
    expect(existsSync(path.join(target, u2netp))).toBe(false)
    expect(existsSync(path.join(target, `${u2netp}.tmp`))).toBe(false)
    // The others still installed.
    expect(existsSync(path.join(target, modelEntry('yunet').file))).toBe(true)
  })

  it('replaces an installed file that no longer matches its pinned hash', () => {
    const target = folder('facet-models-')
    const source = sourceFolder()
    expect(install({ MODELS_FROM: source, MODELS_DIR: target }, '--if-missing').code).toBe(0)
    writeFileSync(path.join(target, modelEntry('yunet').file), 'damaged')
    const result = install({ MODELS_FROM: source, MODELS_DIR: target }, '--if-missing', '--only', 'yunet')
    expect(result.code, result.out).toBe(0)
    expect(result.out).toMatch(/yunet: installed file is not valid/)
    expect(result.out).toMatch(/yunet\s.*installed\s/)
  })

  it('installs only the models named on the command line (`npm run models -- u2netp`), with or without --only', () => {
    const target = folder('facet-models-')
    const result = install({ MODELS_FROM: sourceFolder(), MODELS_DIR: target }, 'u2netp')
    expect(result.code, result.out).toBe(0)
    expect(readdirSync(target)).toEqual([modelEntry('u2netp').file])
    expect(result.out).not.toMatch(/^yunet\s/m)
    const both = install({ MODELS_FROM: sourceFolder(), MODELS_DIR: target }, 'yunet', '--only', 'u2netp')
    expect(both.code, both.out).toBe(0)
    expect(readdirSync(target).sort()).toEqual([modelEntry('u2netp').file, modelEntry('yunet').file].sort())
  })

  it('installs an optional model named by its id even with --if-missing (which skips optional downloads otherwise)', () => {
    const source = folder('facet-models-from-')
    writeFileSync(path.join(source, modelEntry('modnet').file), channelMeanOnnxModel('dynamic'))
    const target = folder('facet-models-')
    const result = install({ MODELS_FROM: source, MODELS_DIR: target }, 'modnet', '--if-missing')
    expect(result.code, result.out).toBe(0)
    expect(result.out).toMatch(/modnet\s.*optional\s+installed\s.*signature ok/)
    expect(readdirSync(target)).toEqual([modelEntry('modnet').file])
  })

  it('with --required, an optional model that cannot be had fails the run instead of being skipped (the image\'s QUALITY_MODELS)', () => {
    // The denoise twin has no public download: without MODELS_FROM holding it, it cannot be had.
    const target = folder('facet-models-')
    const skipped = install({ MODELS_FROM: folder('facet-models-from-'), MODELS_DIR: target }, 'realesr-general-wdn-x4v3')
    expect(skipped.code, skipped.out).toBe(0)
    expect(skipped.out).toMatch(/realesr-general-wdn-x4v3\s.*optional\s+skipped\s/)
    const required = install({ MODELS_FROM: folder('facet-models-from-'), MODELS_DIR: target }, '--required', 'realesr-general-wdn-x4v3')
    expect(required.code, required.out).toBe(1)
    expect(required.out).toMatch(/realesr-general-wdn-x4v3\s.*optional\s+failed\s/)
    expect(required.out).toContain('Required model(s) not installed: realesr-general-wdn-x4v3 (sr-realesr-general-wdn-x4v3.onnx): not in ')
    expect(readdirSync(target)).toEqual([])
  })

  it('refuses an unknown id and lists the ids', () => {
    const result = install({ MODELS_DIR: folder('facet-models-') }, 'rmbg-2')
    expect(result.code).toBe(2)
    expect(result.out).toContain('Unknown model id "rmbg-2": the ids are yunet, u2netp, isnet-general-use, birefnet-lite, modnet,')
  })
})
