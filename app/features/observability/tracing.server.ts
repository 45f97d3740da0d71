// The studio's own spans, through the OpenTelemetry API only. With no SDK started (no
// OTEL_EXPORTER_OTLP_ENDPOINT) every call here meets the API's no-op tracer: nothing is recorded,
// and the stage timeline below is not even kept.
//
// One trace follows a run: the HTTP request (instrumentation-http) queues the job with its context
// as a W3C traceparent in the job's data; the worker, in whatever process, continues that trace with
// the job's spans: the queue wait, the run and its stages (decode, model, refine, encode as each
// tool names them), and the outcome transaction.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api'

const tracer = () => trace.getTracer('facet-studio')

/** The current trace context as a W3C traceparent, to carry in a job's data (none when not tracing). */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {}
  propagation.inject(context.active(), carrier)
  return carrier.traceparent
}

/** Runs `fn` in a span (a child of the current one, or of `options.parent`), recording an error it throws. */
export async function inSpan<T>(
  name: string,
  attributes: Record<string, string | number>,
  fn: (span: Span) => Promise<T>,
  options: { parent?: Context; kind?: SpanKind } = {},
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes, kind: options.kind }, options.parent ?? context.active(), async (span) => {
    try {
      return await fn(span)
    } catch (error) {
      span.recordException(error as Error)
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message })
      throw error
    } finally {
      span.end()
    }
  })
}

/** A job's work in the worker, as a child of the request that queued it (its traceparent). */
export function inJobSpan<T>(traceparent: string | undefined, attributes: Record<string, string>, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT
  return inSpan('tool job', attributes, fn, { parent, kind: SpanKind.CONSUMER })
}

/** A span that already happened (the job's wait in the queue, between two database stamps). */
export function recordPastSpan(name: string, start: Date, end: Date, attributes: Record<string, string>): void {
  tracer().startSpan(name, { startTime: start, attributes }).end(end)
}

/**
 * A run's stages as spans, from the phases its tool reports (runners/progress.ts). A stage spans from
 * the end of the one before it (or the run's start) to its own last report; a stage is written once
 * the next begins, or when the run is done, so a run that fails leaves no half-open span. Nothing is
 * kept when the run is not traced.
 */
export function stageTimeline(): { report(stage: string): void; done(): void } {
  const parent = context.active()
  if (!trace.getSpan(parent)?.isRecording()) return { report() {}, done() {} }
  const closed = new Set<string>()
  let current: { stage: string; start: number; last: number } | null = null
  let boundary = Date.now()
  const close = (end: number) => {
    if (!current) return
    tracer().startSpan(`stage ${current.stage}`, { startTime: current.start, attributes: { 'facet.stage': current.stage } }, parent).end(end)
    closed.add(current.stage)
    boundary = end
    current = null
  }
  return {
    report(stage) {
      const now = Date.now()
      if (current?.stage === stage) {
        current.last = now
        return
      }
      // A stage reporting again after a later one began (phases may overlap at the end) is ignored.
      if (closed.has(stage)) return
      if (current) close(current.last)
      current = { stage, start: boundary, last: now }
    },
    done() {
      close(Date.now())
    },
  }
}

/** Sends the spans still batched (before a process exits at shutdown). */
export async function flushTraces(): Promise<void> {
  const provider = trace.getTracerProvider() as { getDelegate?: () => { forceFlush?: () => Promise<void> } }
  await provider.getDelegate?.().forceFlush?.().catch(() => {})
}
