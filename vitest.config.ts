import os from 'node:os'
import path from 'node:path'
import { defineConfig } from 'vitest/config'

const alias = { '~': path.resolve(__dirname, 'app') }
const testEnv = { NODE_ENV: 'test' as const, DATA_DIR: 'tests/.tmp/data', LOG_LEVEL: 'silent' }
const integration = ['app/**/*.integration.test.{ts,tsx}']

// Unit tests prove rules without a database. Integration tests run through loaders, actions and
// resource routes, once on PGlite and once on PostgreSQL when TEST_DATABASE_URL is set.
export default defineConfig({
  resolve: { alias },
  test: {
    // One worker more than the cores: vitest's default is one fewer, one on a two-core machine, and the
    // integration files spend much of their time waiting (on PostgreSQL, child processes, model threads,
    // pg-boss's 10 s rounds); the extra worker fills those waits. Two-core figures: 406 s with two
    // workers, 344 s with three, 345 s with four (decisions 121 and 152).
    maxWorkers: os.availableParallelism() + 1,
    // A `.only` left in a test file would run that test alone and pass the suite: refused in CI (.ci/run sets CI).
    allowOnly: !process.env.CI,
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['app/**/*.test.{ts,tsx}', 'tests/unit/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.ts', 'packages/*/{src,scripts}/**/*.test.ts'],
          exclude: integration,
          env: testEnv,
          // A safety net for a hung test, not a speed check: some units run real processes and models,
          // and on a busy machine 5 s (vitest's default) fails them for being slow, not wrong.
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'pglite',
          include: integration,
          env: { ...testEnv, TEST_DB: 'pglite' },
          globalSetup: ['tests/support/global-setup.ts'],
          setupFiles: ['tests/support/setup-db.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      ...(process.env.TEST_DATABASE_URL
        ? [
            {
              resolve: { alias },
              test: {
                name: 'postgres',
                include: integration,
                env: { ...testEnv, TEST_DB: 'postgres' },
                globalSetup: ['tests/support/global-setup.ts'],
                setupFiles: ['tests/support/setup-db.ts'],
                // Files run in parallel: each vitest worker has a schema of its own (tests/support/setup-db.ts).
                testTimeout: 60_000,
                hookTimeout: 60_000,
              },
            },
          ]
        : []),
    ],
  },
})
