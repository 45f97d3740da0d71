import { vitePlugin as remix } from '@remix-run/dev'
import tailwindcss from '@tailwindcss/vite'
import { createHash } from 'node:crypto'
import { constants } from 'node:zlib'
import { defineConfig } from 'vite'
import type { ManualChunkMeta } from 'rollup'
import { compression, defineAlgorithm } from 'vite-plugin-compression2'
import tsconfigPaths from 'vite-tsconfig-paths'
import { remixConfig } from './remix.config'

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true
  }
}

/** The tool pages: what they alone share is one chunk. */
const TOOL_ROUTE = /\/app\/routes\/tools\.[^/]+\.tsx/
/** The operator console's pages: what only they share never joins the shell every visitor loads. */
const CONSOLE_ROUTE = /\/app\/routes\/console[._]/

/**
 * Two chunks instead of dozens (decisions 179 and 188):
 *   shell      everything the entry and the root route reach (React, Remix, the layout): every page loads
 *              all of it anyway, so one file costs no byte more than twenty;
 *   workspace  what two or more tool pages share and no other page uses (the workspace, its parts).
 * Small groups of code shared by some pages join the shell (smallShared); anything else stays where Rollup
 * puts it (a route's own code, larger code shared with other pages), so no page loads much it does not use.
 */
function pageChunks(id: string, meta: ManualChunkMeta): string | undefined {
  const reach = reachability(meta)
  const entries = reach.get(id)
  if (!entries) return undefined
  if (entries.has('shell')) return 'shell'
  if (entries.size >= 2 && [...entries].every((entry) => TOOL_ROUTE.test(entry))) return 'workspace'
  if (smallShared(meta).has(id)) return 'shell'
  // Everything else named as Rollup would group it (by the routes that use it): a module left unnamed
  // would be pulled into the chunk of the first named module that imports it (the workspace), and the
  // home page, which shares a few parts with the tools, would load the whole workspace.
  if (entries.size >= 2) return sharedGroup(entries)
  return undefined
}

function sharedGroup(entries: Set<string>): string {
  return `shared-${createHash('sha256').update([...entries].sort().join('\n')).digest('hex').slice(0, 8)}`
}

/**
 * A group of code shared by some pages but not all, smaller than this (source bytes, about a third of
 * that compressed), goes into the shell instead of a file of its own (decision 188): on a 400 ms link a
 * request costs more than a few kilobytes every page then carries. A tool page fetched 15 script files,
 * ten of them under 1 KB compressed.
 */
const SMALL_SHARED_GROUP_BYTES = 8_000

let smallCache: Set<string> | null = null
/**
 * The modules of the small shared groups that can join the shell: only those whose static imports all
 * end in the shell (or in this set), so the shell never comes to import a chunk that some page did not
 * load before (the workspace, a large shared group).
 */
function smallShared(meta: ManualChunkMeta): Set<string> {
  if (smallCache) return smallCache
  const reach = reachability(meta)
  const groupBytes = new Map<string, number>()
  const grouped = new Map<string, string>()
  for (const [id, entries] of reach) {
    if (entries.has('shell') || entries.size < 2 || [...entries].every((entry) => TOOL_ROUTE.test(entry))) continue
    if ([...entries].every((entry) => CONSOLE_ROUTE.test(entry))) continue
    const group = sharedGroup(entries)
    grouped.set(id, group)
    groupBytes.set(group, (groupBytes.get(group) ?? 0) + (meta.getModuleInfo(id)?.code?.length ?? 0))
  }
  const small = new Set([...grouped].filter(([, group]) => groupBytes.get(group)! < SMALL_SHARED_GROUP_BYTES).map(([id]) => id))
  const inShell = (id: string) => reach.get(id)?.has('shell') === true || small.has(id)
  for (let changed = true; changed; ) {
    changed = false
    for (const id of small) {
      if ((meta.getModuleInfo(id)?.importedIds ?? []).every(inShell)) continue
      small.delete(id)
      changed = true
    }
  }
  smallCache = small
  return small
}

let reachCache: Map<string, Set<string>> | null = null
/** For every module, the entries that import it (statically); the entry and root route count as 'shell'. */
function reachability(meta: ManualChunkMeta): Map<string, Set<string>> {
  if (reachCache) return reachCache
  const reach = new Map<string, Set<string>>()
  const ids = [...meta.getModuleIds()]
  for (const entryId of ids) {
    const info = meta.getModuleInfo(entryId)
    if (!info?.isEntry) continue
    const label = /\/app\/(entry\.client|root)\.tsx/.test(entryId) ? 'shell' : entryId
    const stack = [entryId]
    const seen = new Set<string>()
    while (stack.length) {
      const current = stack.pop()!
      if (seen.has(current)) continue
      seen.add(current)
      if (current !== entryId || label === 'shell') {
        const set = reach.get(current) ?? new Set<string>()
        set.add(label)
        reach.set(current, set)
      }
      for (const next of meta.getModuleInfo(current)?.importedIds ?? []) stack.push(next)
    }
  }
  reachCache = reach
  return reach
}

export default defineConfig(({ isSsrBuild }) => ({
  build: {
    cssMinify: true,
    sourcemap: false,
    rollupOptions: {
      // Resource routes (the /api endpoints, /healthz, ...) have no UI, so their browser chunk is empty by
      // design: Rollup's "Generated an empty chunk" line for each of them (about 50) says nothing to act on.
      onwarn(warning, warn) {
        if (warning.code !== 'EMPTY_BUNDLE') warn(warning)
      },
      // Fewer script files per page (issue 35 item 2, decision 179): Rollup splits the browser's code by
      // the set of routes that use it, into about 140 chunks, most under 4 KB, and a tool page fetched
      // 23-27 of them; on a 400 ms phone link each is a request that holds hydration back.
      output: isSsrBuild ? undefined : { manualChunks: pageChunks },
    },
  },
  resolve: {
    // conform's zod adapter builds its coercion wrappers (lazy, optional, pipe, transform) from classic
    // zod, which cannot be tree-shaken (about 25 KB compressed). zod/mini exports the same four with the
    // same behaviour, and our client-side schemas are zod/mini already (decision 148).
    alias: [{ find: /^zod\/v4$/, replacement: 'zod/mini' }],
  },
  server: { port: 3000 },
  plugins: [
    tailwindcss(),
    remix(remixConfig),
    tsconfigPaths(),
    // The browser's files, compressed once at build time at the highest levels (brotli 11, gzip 9): about
    // 13 % fewer bytes than compressing on the fly, on every page (decision 148). server.ts serves them.
    !isSsrBuild &&
      compression({
        include: /\.(js|css|svg)$/,
        algorithms: [
          defineAlgorithm('brotliCompress', { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }),
          defineAlgorithm('gzip', { level: 9 }),
        ],
        logLevel: 'silent',
      }),
  ],
  ssr: {
    // Native and worker-backed packages stay outside the server bundle.
    external: ['sharp', 'onnxruntime-node', '@resvg/resvg-js', '@electric-sql/pglite', 'pg'],
  },
}))
