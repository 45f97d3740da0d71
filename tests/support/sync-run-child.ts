// A web + worker process sending one synchronous run through the enhancer's endpoint (spec §7) as
// the user whose session token is SYNC_TOKEN: the run is taken where it was admitted, in this process
// (docs/decisions/124). tests/integration/jobs-processes.test.ts kills it with SIGKILL mid-run.
import { readFileSync } from 'node:fs'
import { action } from '~/routes/api.image-scaler.scale'
// The tools handed to the job platform and the features' event subscriptions, as in every process that runs jobs.
import '~/features/wiring.server'

const form = new FormData()
form.append('image', new File([readFileSync('tests/fixtures/photos/noface-rocket.jpg')], 'rocket.jpg', { type: 'image/jpeg' }))
const request = new Request('http://localhost/api/image-scaler/scale/', {
  method: 'POST',
  body: form,
  headers: { authorization: `Token ${process.env.SYNC_TOKEN}`, 'x-facet-client-ip': '10.1.2.3' },
})
const response = await action({ request, params: {}, context: {} } as never)
console.log(JSON.stringify({ status: response.status }))
process.exit(0)
