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
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

const repo = path.resolve(import.meta.dirname, '..')
const root = path.join(repo, 'app')
/** The repository's other top folders and files that hold source: each is a unit too. */
const OUTSIDE_APP = ['server.ts', 'scripts', 'bench', 'migrations', 'tests']
const SOURCE = /\.(ts|tsx|mjs|js)$/
const TEST = /(\.test\.tsx?$|\.test-support\.ts$|\.d\.ts$)/

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return sourceFiles(full)
    return SOURCE.test(name) && !TEST.test(name) ? [full] : []
  })
}

export function unitOf(file: string): string {
  if (!file.startsWith(root + path.sep)) return path.relative(repo, file).split(path.sep)[0].replace(/\.ts$/, '')
  const parts = path.relative(root, file).split(path.sep)
  if (parts.length === 1) return parts[0].replace(/\.(server\.)?(ts|tsx|mjs|js)$/, '')
  if (parts[0] === 'features') return parts.length === 2 ? `features/${parts[1].replace(/\.(ts|tsx)$/, '')}` : `features/${parts[1]}`
  return parts[0]
}

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

function resolveImport(from: string, spec: string): string | null {
  let target: string
  if (spec.startsWith('~/')) target = path.join(root, spec.slice(2))
  else if (spec.startsWith('.')) target = path.resolve(path.dirname(from), spec)
  else return null
  return target.startsWith(repo + path.sep) && !target.includes(`${path.sep}node_modules${path.sep}`) ? target : null
}

export interface Structure {
  units: string[]
  edges: Array<[string, string]>
  cycles: string[][]
  backUp: Array<[string, string]>
  order: string[]
}

export function measure(): Structure {
  const files = [root, ...OUTSIDE_APP.map((p) => path.join(repo, p))].flatMap((p) => (statSync(p).isDirectory() ? sourceFiles(p) : [p]))
  const units = new Set(files.map(unitOf))
  const edgeSet = new Set<string>()
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(IMPORT)) {
      const target = resolveImport(file, match[1] ?? match[2])
      if (!target) continue
      const [a, b] = [unitOf(file), unitOf(target)]
      if (a !== b && units.has(b)) edgeSet.add(`${a}\0${b}`)
    }
  }
  const edges = [...edgeSet].map((e) => e.split('\0') as [string, string]).sort()
  const order = feedbackOrder([...units], edges)
  const rank = new Map(order.map((u, i) => [u, i]))
  // order[0] is the top floor: an importer must stand above (earlier than) what it imports.
  const backUp = edges.filter(([a, b]) => rank.get(a)! > rank.get(b)!)
  return { units: [...units].sort(), edges, cycles: stronglyConnected([...units], edges).filter((c) => c.length > 1), backUp, order }
}

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
function stronglyConnected(units: string[], edges: Array<[string, string]>): string[][] {
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
    console.log(`units ${s.units.length}, import edges ${s.edges.length}, cycles ${s.cycles.length}, edges running back up ${s.backUp.length}`)
    for (const cycle of s.cycles) console.log(`cycle: ${cycle.join(' <-> ')}`)
    if (process.argv.includes('--list')) {
      console.log(`floors, top first: ${s.order.join(' > ')}`)
      for (const [a, b] of s.backUp) console.log(`back up: ${a} -> ${b}`)
    }
  }
}
