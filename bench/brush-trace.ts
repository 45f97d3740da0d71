// Reads a Chromium trace written by `BRUSH_TRACE=<file> npx tsx bench/brush.ts` and lists what the
// page's threads spent long stretches on (tasks, paints, raster and image decode, collections),
// with the strokes' marks, in milliseconds from the trace's start: what a long frame was made of.
//   npx tsx bench/brush-trace.ts <file> [min ms, default 30]
import { readFileSync } from 'node:fs'
import { runAsScript } from './support'

type TraceEvent = { name: string; ph: string; ts: number; dur?: number; pid: number; tid: number; args?: { name?: string } }

export function longEvents(file: string, minMs = 30) {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[]
  const events = Array.isArray(raw) ? raw : raw.traceEvents
  const threads = new Map<string, string>()
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?')
  // A trace holds hundreds of thousands of events: no spread into Math.min.
  const start = events.reduce((min, e) => (e.ts > 0 && e.ts < min ? e.ts : min), Infinity)
  const at = (ts: number) => Math.round((ts - start) / 1000)
  const marks = events.filter((e) => e.name.startsWith('stroke-start-')).map((e) => ({ at: at(e.ts), mark: e.name }))
  // The longest event of each nesting is enough: a task and the work inside it are listed together.
  const long = events
    .filter((e) => e.ph === 'X' && (e.dur ?? 0) >= minMs * 1000)
    .map((e) => ({ at: at(e.ts), ms: Math.round((e.dur ?? 0) / 1000), thread: threads.get(`${e.pid}:${e.tid}`) ?? `${e.tid}`, name: e.name }))
    .sort((a, b) => a.at - b.at)
  return { marks, long }
}

runAsScript(import.meta.url, async () => longEvents(process.argv[2]!, Number(process.argv[3] ?? 30)))
