#!/usr/bin/env node
// The `facet` command: its TypeScript sources run through tsx (nothing to build in this repository).
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../src/main.ts')
process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env })
