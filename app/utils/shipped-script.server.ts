// Plain-JS entry files that run beside the server (the SVG renderer's child process, the inference
// thread) are shipped as they are, not bundled: this is where a server module finds its own.
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The file `projectPath` (relative to the project root) for the module at `moduleUrl`: beside the
 * module's source in development, tests and tsx scripts; else from the working directory, because
 * the Vite build bundles the module elsewhere (`node --import tsx server.ts` runs from the project
 * root, and the Docker image copies app/ into its working directory).
 */
export function shippedScript(moduleUrl: string, projectPath: string): string {
  const candidates = [path.join(path.dirname(fileURLToPath(moduleUrl)), path.basename(projectPath)), path.resolve(projectPath)]
  const found = candidates.find((file) => existsSync(file))
  if (!found) throw new Error(`${path.basename(projectPath)} not found`)
  return found
}
