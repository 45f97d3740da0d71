// One benchmark case of sharp's own SVG loader (librsvg), in a process of its own so that its peak
// memory (VmHWM) is its own: argv = file, density, runs. Prints {times, peakRssKb} as JSON.
import { readFileSync } from 'node:fs'
import sharp from 'sharp'

const [file, density, runs] = process.argv.slice(2)
const bytes = readFileSync(file)
const times = []
for (let i = 0; i < Number(runs); i++) {
  const t0 = performance.now()
  await sharp(bytes, { density: Number(density), limitInputPixels: false }).png().toBuffer()
  times.push(performance.now() - t0)
}
const hwm = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'))
console.log(JSON.stringify({ times, peakRssKb: hwm ? Number(hwm[1]) : process.resourceUsage().maxRSS }))
