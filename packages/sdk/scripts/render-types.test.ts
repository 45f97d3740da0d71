// The CI check that the SDK's committed types are the studio's OpenAPI document: regenerated in memory,
// compared with the committed file. A change to the document without `npm run sdk:generate` fails here.
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { GENERATE_COMMAND, GENERATED_TYPES_PATH, renderTypes } from './render-types'

it('the committed SDK types match the OpenAPI document', async () => {
  const committed = readFileSync(GENERATED_TYPES_PATH, 'utf8')
  const fresh = await renderTypes()
  expect(fresh.length).toBeGreaterThan(10_000)
  if (committed !== fresh) {
    expect.fail(`packages/sdk/src/generated/openapi.d.ts differs from the studio's OpenAPI document: run \`${GENERATE_COMMAND}\` and commit the file.`)
  }
})
