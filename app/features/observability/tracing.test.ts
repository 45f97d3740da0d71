// The studio's spans, with a real SDK recording in memory: a job continues the trace its traceparent
// names, and a run's phases become stage spans that tile the run (each from the end of the one before
// to its own last report); nothing is kept when nobody traces.
import { context, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { currentTraceparent, inJobSpan, inSpan, stageTimeline } from './tracing.server'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })

const named = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)
const parentOf = (span: { parentSpanContext?: { spanId: string } }) => span.parentSpanContext?.spanId

describe('without an SDK', () => {
  it('carries no traceparent and keeps no stage timeline', async () => {
    expect(currentTraceparent()).toBeUndefined()
    const stages = stageTimeline()
    stages.report('decoded')
    stages.done()
    expect(await inSpan('nothing', {}, async (span) => span.isRecording())).toBe(false)
  })
})

describe('with an SDK', () => {
  beforeEach(() => {
    provider.register()
    exporter.reset()
  })
  afterAll(() => provider.shutdown())

  it('a job continues the trace of the request that queued it', async () => {
    const traceparent = await inSpan('POST /api/remove-bg/', {}, async () => currentTraceparent())
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    await inJobSpan(traceparent, { 'facet.job.id': 'j1' }, async () => {})
    const request = named('POST /api/remove-bg/')!
    const job = named('tool job')!
    expect(job.spanContext().traceId).toBe(request.spanContext().traceId)
    expect(parentOf(job)).toBe(request.spanContext().spanId)
  })

  it('phases become stage spans under the run, tiling it in order; a stage reporting late is ignored', async () => {
    await inSpan('run', {}, async () => {
      const stages = stageTimeline()
      stages.report('decoded')
      stages.report('matte')
      stages.report('matte')
      stages.report('refined')
      stages.report('matte') // a late report of a finished stage
      stages.report('encoded')
      stages.done()
    })
    const run = named('run')!
    const stageSpans = exporter.getFinishedSpans().filter((s) => s.name.startsWith('stage '))
    expect(stageSpans.map((s) => s.name)).toEqual(['stage decoded', 'stage matte', 'stage refined', 'stage encoded'])
    for (const span of stageSpans) expect(parentOf(span)).toBe(run.spanContext().spanId)
    // Each stage starts where the one before ended.
    for (let i = 1; i < stageSpans.length; i++) expect(stageSpans[i]!.startTime).toEqual(stageSpans[i - 1]!.endTime)
  })

  it('a run that fails leaves no half-open stage, and the run span says it failed', async () => {
    await expect(
      inSpan('run', {}, async () => {
        const stages = stageTimeline()
        stages.report('decoded')
        stages.report('matte')
        throw new Error('model crashed')
      }),
    ).rejects.toThrow('model crashed')
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['stage decoded', 'run'])
    expect(named('run')!.status).toMatchObject({ code: 2, message: 'model crashed' })
    expect(trace.getSpan(context.active())).toBeUndefined()
  })
})
