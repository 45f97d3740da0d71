// The house's structure in figures: units, import edges between them, cycles, and edges that run back
// up. `npx tsx scripts/structure.ts [--list]` (`--json` for a machine-readable answer).
//
// A unit is a folder of app/features/, app/ui, app/routes, each other folder of app/, each file at the
// top of app/ (root.tsx, config.server.ts, ...), and each top folder of the repository that holds source
// (scripts, bench, migrations, tests) and server.ts. Test files (*.test.ts) are left out: they may import
// anything they prove.
// Floors: units are put in the order that leaves the fewest imports pointing upwards (Eades, Lin and
// Smyth's greedy heuristic for a minimum feedback arc set: sinks go to the bottom, sources to the top, then
// the unit whose out-degree most exceeds its in-degree). An edge "runs back up" when its importer stands
// below what it imports in that order; every cycle has at least one such edge, so no cycle means none.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

const repo = path.resolve(import.meta.dirname, '..')
const root = path.join(repo, 'app')
/** The repository's other top folders and files that hold source: each is a unit too. */
const OUTSIDE_APP = ['server.ts', 'scripts', 'bench', 'migrations', 'tests', 'packages']
const SOURCE = /\.(ts|tsx|mjs|js)$/
const TEST = /(\.test\.tsx?$|\.test-support\.ts$|\.d\.ts$)/

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(full)
    return SOURCE.test(name) && !TEST.test(name) ? [full] : []
  })
}

export function unitOf(file: string): string {
  if (!file.startsWith(root + path.sep)) {
    const parts = path.relative(repo, file).split(path.sep)
    // Each workspace package is a unit of its own (packages/sdk, packages/cli).
    return parts[0] === 'packages' ? parts.slice(0, 2).join('/') : parts[0].replace(/\.ts$/, '')
  }
  const parts = path.relative(root, file).split(path.sep)
  if (parts.length === 1) return parts[0].replace(/\.(server\.)?(ts|tsx|mjs|js)$/, '')
  if (parts[0] === 'features') return parts.length === 2 ? `features/${parts[1].replace(/\.(ts|tsx)$/, '')}` : `features/${parts[1]}`
  return parts[0]
}

const IMPORT = /(?:import|export)\s+(type\s+)?([^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** `import type { A }`, and `import { type A, type B }` where every name is a type: gone from the built code. */
function typeOnly(match: RegExpMatchArray): boolean {
  if (match[1] !== undefined) return true
  const names = match[2]?.match(/^\{([^}]*)\}\s*from\s+$/)?.[1].split(',').map((n) => n.trim()).filter(Boolean)
  return names !== undefined && names.length > 0 && names.every((n) => n.startsWith('type '))
}

/** tsconfig's `paths` (`~/*` -> `./app/*`), read from the file so a new alias is resolved the day it is added. */
function aliases(): Array<{ prefix: string; targets: string[] }> {
  const config = JSON.parse(readFileSync(path.join(repo, 'tsconfig.json'), 'utf8')) as {
    compilerOptions?: { baseUrl?: string; paths?: Record<string, string[]> }
  }
  const base = path.join(repo, config.compilerOptions?.baseUrl ?? '.')
  return Object.entries(config.compilerOptions?.paths ?? {}).map(([pattern, targets]) => ({
    prefix: pattern.replace(/\*$/, ''),
    targets: targets.map((t) => path.join(base, t.replace(/\*$/, ''))),
  }))
}

/** The workspace packages' exports by import name (`@facet-studio/sdk` -> packages/sdk/src/index.ts), from their package.json. */
function workspaceExports(): Map<string, string> {
  const found = new Map<string, string>()
  const dir = path.join(repo, 'packages')
  if (!existsSync(dir)) return found
  for (const folder of readdirSync(dir)) {
    const manifest = path.join(dir, folder, 'package.json')
    if (!existsSync(manifest)) continue
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; exports?: Record<string, string> | string; main?: string }
    const exports = typeof pkg.exports === 'string' ? { '.': pkg.exports } : (pkg.exports ?? { '.': pkg.main ?? 'index.js' })
    for (const [sub, file] of Object.entries(exports)) found.set(path.posix.join(pkg.name, sub), path.join(dir, folder, file))
  }
  return found
}

/** What a specifier names on disk, tried the way the bundler resolves it: as written, with an extension, as a folder's index. */
const CANDIDATES = ['', '.ts', '.tsx', '.mjs', '.js', '.d.ts', '/index.ts', '/index.tsx']
function onDisk(target: string): string | null {
  const tries = CANDIDATES.map((ext) => target + ext)
  // `./x.js` written for an x.ts (the ESM habit).
  if (/\.m?js$/.test(target)) tries.push(target.replace(/\.m?js$/, '.ts'), target.replace(/\.m?js$/, '.tsx'))
  return tries.find((t) => existsSync(t) && statSync(t).isFile()) ?? null
}

/**
 * The declared floors (decisions 119 and 170), top first: a unit may import units on its own floor and
 * below, never above. A new unit goes on a floor here before it is imported (the suite names it).
 */
export const FLOORS: string[][] = [
  // Entry points: processes, the Remix entries and routes, the tests, the benches, the SDK and its CLI.
  ['bench', 'entry', 'entry.client', 'packages/cli', 'packages/sdk', 'root', 'routes', 'scripts', 'server', 'telemetry', 'tests'],
  // Pages and glue over the product: what no feature below needs.
  [
    'features/api-docs',
    'features/console',
    'features/contact',
    'features/developers',
    'features/health',
    'features/history',
    'features/mcp',
    'features/operator',
    'features/removebg',
    'features/rights',
    'features/site',
    'features/wiring.server',
  ],
  ['features/batches'],
  ['features/corrections', 'features/feedback', 'features/webhooks'],
  ['features/tools'],
  // The job platform (decision 180): admission, queue, workers, outcomes, results; the tools are handed in at wiring.
  ['features/jobs'],
  ['features/layout'],
  ['features/account'],
  ['features/teams'],
  // The HTTP kit and the studio's Express app (which reads the key gate, metrics and guards below it).
  ['http'],
  ['features/auth'],
  ['features/api-keys'],
  ['features/credits'],
  ['features/analytics', 'features/audit', 'features/mail', 'features/observability', 'features/queue', 'features/security'],
  // The bottom: configuration, database, catalog (client-safe facts), utilities, UI parts, migrations.
  ['catalog', 'config', 'db', 'migrations', 'ui', 'utils'],
]

function floorOf(floors: string[][]): Map<string, number> {
  return new Map(floors.flatMap((units, i) => units.map((u): [string, number] => [u, i])))
}

/** The edges whose importer stands on a lower floor than what it imports (floors top first). */
export function runningBackUp<E extends { from: string; to: string }>(edges: E[], floors: string[][]): E[] {
  const floor = floorOf(floors)
  return edges.filter((e) => floor.has(e.from) && floor.has(e.to) && floor.get(e.from)! > floor.get(e.to)!)
}

export interface Resolver {
  /** The file a specifier names, null for a package from node_modules; throws nothing, see `internal`. */
  resolve(from: string, spec: string): string | null
  /** Whether a specifier names the repository's own code (relative, an alias, a workspace package). */
  internal(spec: string): boolean
}

export function resolver(): Resolver {
  const paths = aliases()
  const packages = workspaceExports()
  const scopes = new Set([...packages.keys()].map((name) => name.split('/').slice(0, name.startsWith('@') ? 2 : 1).join('/')))
  const candidates = (from: string, spec: string): string[] => {
    if (spec.startsWith('.')) return [path.resolve(path.dirname(from), spec)]
    if (packages.has(spec)) return [packages.get(spec)!]
    // A workspace package's path it does not export: internal, and named by no file.
    if ([...scopes].some((name) => spec.startsWith(name + '/'))) return [path.join(repo, 'packages', '\0unexported', spec)]
    return paths.filter((a) => spec.startsWith(a.prefix)).flatMap((a) => a.targets.map((t) => path.join(t, spec.slice(a.prefix.length))))
  }
  return {
    internal: (spec) => candidates(repo, spec).length > 0,
    resolve: (from, spec) => {
      // `./app.css?url`: Vite's query says how to load the file, not which file.
      for (const target of candidates(from, spec.replace(/\?.*$/, ''))) {
        const file = onDisk(target)
        if (file && !file.includes(`${path.sep}node_modules${path.sep}`)) return file
      }
      return null
    },
  }
}

/** An import between two units, with the file that makes it (the first found) and whether every import between them is type-only. */
export interface Edge {
  from: string
  to: string
  /** The importing file and the specifier, relative to the repository: evidence for a message. */
  via: string
  typeOnly: boolean
}

export interface Structure {
  units: string[]
  edges: Edge[]
  /** Specifiers of the repository's own code that name no file: each hides an edge. */
  unresolved: string[]
  cycles: string[][]
  /** Cycles between files (inside a unit too), type-only imports included: files, relative to the repository. */
  fileCycles: string[][]
  /** Edges whose importer stands on a lower declared floor than what it imports (FLOORS). */
  backUp: Edge[]
  /** Units with no declared floor. */
  undeclared: string[]
  /** The order (top first) that leaves the fewest edges pointing up, found from the edges alone. */
  order: string[]
}

export function measure(): Structure {
  const files = [root, ...OUTSIDE_APP.map((p) => path.join(repo, p))].flatMap((p) => (statSync(p).isDirectory() ? sourceFiles(p) : [p]))
  const units = new Set(files.map(unitOf))
  const { resolve, internal } = resolver()
  const edgeMap = new Map<string, Edge>()
  const unresolved: string[] = []
  const fileEdges: Array<[string, string]> = []
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[3] ?? match[4]
      const target = resolve(file, spec)
      if (!target) {
        if (internal(spec)) unresolved.push(`${path.relative(repo, file)}: '${spec}'`)
        continue
      }
      if (target !== file) fileEdges.push([path.relative(repo, file), path.relative(repo, target)])
      const [from, to] = [unitOf(file), unitOf(target)]
      if (from === to || !units.has(to)) continue
      const types = typeOnly(match)
      const via = `${path.relative(repo, file)} imports '${spec}'`
      const known = edgeMap.get(`${from}\0${to}`)
      if (!known) edgeMap.set(`${from}\0${to}`, { from, to, via, typeOnly: types })
      else if (known.typeOnly && !types) Object.assign(known, { typeOnly: false, via })
    }
  }
  const edges = [...edgeMap.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to))
  const pairs = edges.map((e): [string, string] => [e.from, e.to])
  const floor = floorOf(FLOORS)
  const undeclared = [...units].filter((u) => !floor.has(u)).sort()
  // FLOORS[0] is the top floor: an importer must stand on its target's floor or above it.
  const backUp = runningBackUp(edges, FLOORS)
  return {
    units: [...units].sort(),
    edges,
    unresolved,
    cycles: stronglyConnected([...units], pairs).filter((c) => c.length > 1),
    fileCycles: stronglyConnected([...new Set(fileEdges.flat())], fileEdges).filter((c) => c.length > 1),
    backUp,
    undeclared,
    order: feedbackOrder([...units], pairs),
  }
}

/** The edges between the units of a cycle: what to cut. */
export const edgesWithin = (edges: Edge[], units: string[]) => edges.filter((e) => units.includes(e.from) && units.includes(e.to))

/** A line naming an edge and the import that makes it. */
export const describeEdge = (e: Edge) => `${e.from} -> ${e.to}${e.typeOnly ? ' (type-only)' : ''}: ${e.via}`

/** Eades-Lin-Smyth: an order (top first) that leaves few edges pointing up. */
function feedbackOrder(units: string[], edges: Array<[string, string]>): string[] {
  const out = new Map(units.map((u) => [u, new Set<string>()]))
  const into = new Map(units.map((u) => [u, new Set<string>()]))
  for (const [a, b] of edges) {
    out.get(a)!.add(b)
    into.get(b)!.add(a)
  }
  const left = new Set(units)
  const top: string[] = []
  const bottom: string[] = []
  const remove = (u: string) => {
    left.delete(u)
    for (const v of out.get(u)!) into.get(v)!.delete(u)
    for (const v of into.get(u)!) out.get(v)!.delete(u)
  }
  while (left.size > 0) {
    let changed = true
    while (changed) {
      changed = false
      for (const u of [...left].sort()) {
        if (out.get(u)!.size === 0) {
          bottom.unshift(u)
          remove(u)
          changed = true
        } else if (into.get(u)!.size === 0) {
          top.push(u)
          remove(u)
          changed = true
        }
      }
    }
    if (left.size === 0) break
    const pick = [...left].sort().reduce((best, u) =>
      out.get(u)!.size - into.get(u)!.size > out.get(best)!.size - into.get(best)!.size ? u : best,
    )
    top.push(pick)
    remove(pick)
  }
  return [...top, ...bottom]
}

/** Tarjan's strongly connected components. */
export function stronglyConnected(units: string[], edges: Array<[string, string]>): string[][] {
  const next = new Map(units.map((u) => [u, [] as string[]]))
  for (const [a, b] of edges) next.get(a)!.push(b)
  let index = 0
  const indices = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const visit = (u: string) => {
    indices.set(u, index)
    low.set(u, index++)
    stack.push(u)
    onStack.add(u)
    for (const v of next.get(u)!) {
      if (!indices.has(v)) {
        visit(v)
        low.set(u, Math.min(low.get(u)!, low.get(v)!))
      } else if (onStack.has(v)) low.set(u, Math.min(low.get(u)!, indices.get(v)!))
    }
    if (low.get(u) === indices.get(u)) {
      const component: string[] = []
      let v: string
      do {
        v = stack.pop()!
        onStack.delete(v)
        component.push(v)
      } while (v !== u)
      components.push(component.sort())
    }
  }
  for (const u of units) if (!indices.has(u)) visit(u)
  return components
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = measure()
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(s, null, 2))
  } else {
    const typeOnlyEdges = s.edges.filter((e) => e.typeOnly).length
    console.log(
      `units ${s.units.length}, import edges ${s.edges.length} (${typeOnlyEdges} type-only), cycles ${s.cycles.length} ` +
        `(between files ${s.fileCycles.length}), ` +
        `edges running back up ${s.backUp.length}, unresolved imports ${s.unresolved.length}, units on no floor ${s.undeclared.length}`,
    )
    for (const cycle of s.cycles) {
      console.log(`cycle through ${cycle.length} units: ${cycle.join(' <-> ')}`)
      for (const edge of edgesWithin(s.edges, cycle)) console.log(`  ${describeEdge(edge)}`)
    }
    for (const cycle of s.fileCycles) console.log(`cycle between files: ${cycle.join(' <-> ')}`)
    for (const spec of s.unresolved) console.log(`unresolved: ${spec}`)
    for (const unit of s.undeclared) console.log(`on no floor: ${unit}`)
    for (const edge of s.backUp) console.log(`back up: ${describeEdge(edge)}`)
    if (process.argv.includes('--list')) {
      console.log(`declared floors, top first: ${FLOORS.map((f) => f.join(', ')).join(' > ')}`)
      console.log(`order found from the edges, top first: ${s.order.join(' > ')}`)
    }
  }
}
