// The files a command names: a file as it is; a folder's image files (not its subfolders or hidden
// files); a glob ("shots/**/*.jpg", quoted so the shell leaves it alone) through tinyglobby.
import { readdirSync, statSync } from 'node:fs'
import { basename, extname, isAbsolute, join } from 'node:path'
import { glob, isDynamicPattern } from 'tinyglobby'
import type { ToolSlug } from '@facet-studio/sdk'
import { UsageError } from './exit-codes'

/** The files a folder contributes, by extension (the studio itself checks each file's real type). */
const IMAGE_EXTENSIONS = new Set(['.png', '.jpg', '.jpeg', '.webp', '.tif', '.tiff'])
const SVG_EXTENSIONS = new Set(['.svg'])

export interface Inputs {
  files: string[]
  /** A folder, a glob or several files: a batch, whose results go into a folder. */
  batch: boolean
}

function takes(tool: ToolSlug, name: string): boolean {
  const extension = extname(name).toLowerCase()
  return !name.startsWith('.') && (tool === 'svg-converter' ? SVG_EXTENSIONS : IMAGE_EXTENSIONS).has(extension)
}

function statOf(path: string) {
  try {
    return statSync(path)
  } catch {
    return null
  }
}

export async function expandInputs(tool: ToolSlug, inputs: string[]): Promise<Inputs> {
  const files: string[] = []
  let batch = inputs.length > 1
  for (const input of inputs) {
    const stat = statOf(input)
    if (stat?.isFile()) {
      files.push(input)
    } else if (stat?.isDirectory()) {
      batch = true
      const found = readdirSync(input, { withFileTypes: true })
        .filter((entry) => entry.isFile() && takes(tool, entry.name))
        .map((entry) => join(input, entry.name))
        .sort()
      if (found.length === 0) throw new UsageError(`${input} holds no ${tool === 'svg-converter' ? 'SVG' : 'image (PNG, JPG, WebP, TIFF)'} file.`)
      files.push(...found)
    } else if (isDynamicPattern(input)) {
      batch = true
      const found = (await glob(input, { onlyFiles: true, dot: false, absolute: isAbsolute(input) })).filter((file) => takes(tool, basename(file))).sort()
      if (found.length === 0) throw new UsageError(`no ${tool === 'svg-converter' ? 'SVG' : 'image'} file matches ${input}.`)
      files.push(...found)
    } else {
      throw new UsageError(`no such file or folder: ${input}`)
    }
  }
  return { files: [...new Set(files)], batch }
}
