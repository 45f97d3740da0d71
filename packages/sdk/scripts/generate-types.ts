// npm run sdk:generate: writes packages/sdk/src/generated/openapi.d.ts from the studio's OpenAPI document.
import { writeFileSync } from 'node:fs'
import { GENERATED_TYPES_PATH, renderTypes } from './render-types'

writeFileSync(GENERATED_TYPES_PATH, await renderTypes())
process.stdout.write(`wrote ${GENERATED_TYPES_PATH}\n`)
