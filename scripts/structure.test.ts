// The house's structure, checked on every run (decision 170): every import of the repository's own code
// resolves to a file, every unit stands on a declared floor, no cycle (between units or files, type-only
// imports included) and at most one import running back up against the declared floors.
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { describeEdge, edgesWithin, FLOORS, measure, resolver, runningBackUp, stronglyConnected, unitOf } from './structure'

const repo = path.resolve(import.meta.dirname, '..')
const structure = measure()

describe('the structure (npx tsx scripts/structure.ts --list)', () => {
  it('resolves every import of the repository’s own code to a file', () => {
    expect(structure.unresolved, `unresolved imports:\n${structure.unresolved.join('\n')}`).toEqual([])
  })

  it('puts every unit on a declared floor (FLOORS in scripts/structure.ts), each once', () => {
    expect(structure.undeclared, `units on no floor: ${structure.undeclared.join(', ')}`).toEqual([])
    const declared = FLOORS.flat()
    expect(declared.filter((u, i) => declared.indexOf(u) !== i)).toEqual([])
    expect(declared.filter((u) => !structure.units.includes(u)), 'floors naming a unit that no longer exists').toEqual([])
  })

  it('has no cycle between units or between files, type-only imports included', () => {
    const cycles = [
      ...structure.cycles.map((c) => `units: ${c.join(' <-> ')}, through\n  ${edgesWithin(structure.edges, c).map(describeEdge).join('\n  ')}`),
      ...structure.fileCycles.map((c) => `files: ${c.join(' <-> ')}`),
    ]
    expect(cycles, `cycles:\n${cycles.join('\n')}`).toEqual([])
  })

  it('has at most one import running back up against the declared floors', () => {
    const up = structure.backUp.map(describeEdge)
    expect(up.length, `imports running back up:\n${up.join('\n')}`).toBeLessThanOrEqual(1)
  })
})

describe('the structure’s resolver', () => {
  const { resolve, internal } = resolver()
  const from = path.join(repo, 'app/features/tools/runners/index.server.ts')

  it('resolves the tsconfig alias, with or without an extension, to the file (a `.server` module too)', () => {
    expect(resolve(from, '~/config.server')).toBe(path.join(repo, 'app/config.server.ts'))
    expect(resolve(from, '~/catalog/tools')).toBe(path.join(repo, 'app/catalog/tools.ts'))
    expect(unitOf(resolve(from, '~/config.server')!)).toBe('config')
  })

  it('resolves relative paths, a folder’s index, `.js` written for `.ts`, and a Vite query', () => {
    expect(resolve(from, '../upload.server')).toBe(path.join(repo, 'app/features/tools/upload.server.ts'))
    expect(resolve(path.join(repo, 'app/root.tsx'), './styles/app.css?url')).toBe(path.join(repo, 'app/styles/app.css'))
  })

  it('resolves a workspace package by its name to its export', () => {
    expect(resolve(from, '@facet-studio/sdk')).toBe(path.join(repo, 'packages/sdk/src/index.ts'))
    expect(unitOf(path.join(repo, 'packages/sdk/src/index.ts'))).toBe('packages/sdk')
  })

  it('tells the repository’s own specifiers (which must resolve) from packages', () => {
    expect(internal('~/nowhere/at-all')).toBe(true)
    expect(resolve(from, '~/nowhere/at-all')).toBeNull()
    expect(internal('@facet-studio/sdk/not-exported')).toBe(true)
    expect(internal('kysely')).toBe(false)
    expect(internal('node:path')).toBe(false)
  })
})

describe('the structure’s checks', () => {
  it('find a cycle, a type-only one too, and leave a chain alone', () => {
    expect(stronglyConnected(['a', 'b', 'c'], [['a', 'b'], ['b', 'c']]).filter((c) => c.length > 1)).toEqual([])
    expect(stronglyConnected(['a', 'b', 'c'], [['a', 'b'], ['b', 'c'], ['c', 'a']]).filter((c) => c.length > 1)).toEqual([['a', 'b', 'c']])
  })

  it('name an import from a lower floor to a higher one, not one sideways or down', () => {
    const floors = [['top'], ['middle', 'beside'], ['bottom']]
    const edge = (from: string, to: string) => ({ from, to, via: `${from}.ts imports '${to}'`, typeOnly: false })
    const edges = [edge('top', 'middle'), edge('middle', 'beside'), edge('middle', 'bottom'), edge('bottom', 'middle'), edge('beside', 'top')]
    expect(runningBackUp(edges, floors).map(describeEdge)).toEqual(["bottom -> middle: bottom.ts imports 'middle'", "beside -> top: beside.ts imports 'top'"])
  })
})
