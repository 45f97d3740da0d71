// The production server (run by tsx) and the Vite-built Remix bundle each hold their own copy of
// every module. Anything that must exist once per process (the database, model sessions, the run
// queue) is therefore kept on globalThis under a fixed name.
export function singleton<T>(name: string, create: () => T): T {
  const store = globalThis as unknown as { __facetSingletons?: Map<string, unknown> }
  store.__facetSingletons ??= new Map()
  if (!store.__facetSingletons.has(name)) store.__facetSingletons.set(name, create())
  return store.__facetSingletons.get(name) as T
}

export function replaceSingleton<T>(name: string, value: T): void {
  const store = globalThis as unknown as { __facetSingletons?: Map<string, unknown> }
  store.__facetSingletons ??= new Map()
  store.__facetSingletons.set(name, value)
}

/** The value if it was created already, without creating it (for shutdown paths). */
export function existingSingleton<T>(name: string): T | undefined {
  const store = globalThis as unknown as { __facetSingletons?: Map<string, unknown> }
  return store.__facetSingletons?.get(name) as T | undefined
}

// Names of the singletons that belong to the installed database (pg-boss and what it set up there).
function databaseBoundNames(): Set<string> {
  return singleton('database-bound-singletons', () => new Set<string>())
}

/**
 * A singleton that belongs to the database it was made on (pg-boss, its queues, the worker): when
 * another database is installed (useDatabaseHandle: benches and tests), the next call makes it again
 * on that database instead of handing back one bound to the previous database.
 */
export function databaseSingleton<T>(name: string, create: () => T): T {
  databaseBoundNames().add(name)
  return singleton(name, create)
}

/** Forgets every databaseSingleton (their owner stops them first: stopBoss). */
export function forgetDatabaseSingletons(): void {
  const store = globalThis as unknown as { __facetSingletons?: Map<string, unknown> }
  for (const name of databaseBoundNames()) store.__facetSingletons?.delete(name)
}
