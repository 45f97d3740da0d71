// Stage-by-stage timing of the background remover at 12 MP, to see where the time outside the model goes.
//   npx tsx bench/remover-stages.ts [runs]        (FIXTURE=<file in tests/fixtures/photos> for another picture)
import os from 'node:os'
import { activeSegmenter, predictMatte, removeBackground } from '../app/features/tools/background-remover.server'
import { refineMatte, softBandReach } from '../app/features/tools/models/matte.server'
import { upscaleMatteNearEdges } from '../app/features/tools/models/matte-upscale.server'
import { encodePng } from '../app/features/tools/models/pixels.server'
import { fixtureAt } from './support'

const image = await fixtureAt(process.env.FIXTURE ?? 'product-gameboy-white-bg.jpg', 12)
const { data } = image
const segmenter = activeSegmenter()
await removeBackground({ data: data.subarray(0, 64 * 64 * 4), width: 64, height: 64 })
const runs = Number(process.argv[2] ?? 3)
for (let r = 0; r < runs; r++) {
  // Wall time, and in brackets the CPU time of the process (every thread): on a loaded machine the second is steadier.
  const times: Record<string, number> = {}
  const cpu: Record<string, number> = {}
  let lapStart = performance.now()
  let cpuStart = process.cpuUsage()
  const lap = (name: string) => {
    const now = performance.now()
    const used = process.cpuUsage(cpuStart)
    times[name] = Math.round(now - lapStart)
    cpu[name] = Math.round((used.user + used.system) / 1000)
    lapStart = now
    cpuStart = process.cpuUsage()
  }
  const { matte } = await predictMatte(image, segmenter)
  lap('predictMatte')
  const refinement = { minComponentShare: 0.1, edgeSigma: Math.min(4, Math.max(0.6, (Math.max(image.width, image.height) / segmenter.size) * 0.5)), backdropDistance: 24 }
  const soft = await upscaleMatteNearEdges({ data: matte, width: segmenter.size, height: segmenter.size, channels: 1 }, image.width, image.height, softBandReach(refinement))
  lap('upscale')
  const alpha = await refineMatte(soft.data, image.data, image.width, image.height, refinement)
  lap('refine')
  await encodePng({ data: image.data, width: image.width, height: image.height, channels: 4 }, { alpha })
  lap('encode')
  lapStart = performance.now()
  cpuStart = process.cpuUsage()
  await removeBackground(image)
  lap('removeBackground')
  console.log(Object.keys(times).map((k) => `${k} ${times[k]} (${cpu[k]})`).join(', '), `ratio ${(times.removeBackground / times.predictMatte).toFixed(2)}, load ${os.loadavg()[0].toFixed(2)}`)
}
