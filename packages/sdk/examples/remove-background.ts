// The SDK's first call, as the README gives it: a photo's background removed, the cutout written.
//   FACET_API_KEY=fs_live_… npx tsx packages/sdk/examples/remove-background.ts photo.jpg cut.png
import { writeFile } from 'node:fs/promises'
import { createClient, FacetError } from '@facet-studio/sdk'

const [input = 'photo.jpg', output = 'cut.png'] = process.argv.slice(2)
const facet = createClient({ baseUrl: process.env.FACET_URL ?? 'http://localhost:3000', apiKey: process.env.FACET_API_KEY ?? '' })
try {
  const cutout = await facet.removeBackground(input) // a path, a Buffer, a Blob or a stream
  await writeFile(output, cutout.data)
  console.log(`${output}: ${cutout.creditsCharged} credit(s) charged, ${cutout.creditsRemaining} left`)
} catch (error) {
  if (!(error instanceof FacetError)) throw error
  console.error(`The studio answered ${error.status}: ${error.message}`) // its own words
  process.exitCode = 2
}
