// The OpenTelemetry SDK, started only when OTEL_EXPORTER_OTLP_ENDPOINT is set (register.ts). Spans of
// HTTP (incoming requests and outgoing ones such as webhooks), Express and pg, plus the studio's own
// (a job's queue wait, run, stages and outcome: features/observability/tracing.server.ts), are
// batched to the collector over OTLP/HTTP; the exporter reads the standard OTEL_EXPORTER_OTLP_*
// variables itself (protocol, headers, timeout).
import { register } from 'node:module'
import { createAddHookMessageChannel } from 'import-in-the-middle'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { registerInstrumentations } from '@opentelemetry/instrumentation'
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express'
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http'
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions'

/** Requests too frequent to be worth a trace each (probes, scrapes, static files). */
const UNTRACED_PATHS = /^\/(livez|readyz|healthz|metrics|assets\/|favicon)/

export async function startTracing(options: { serviceName: string }): Promise<void> {
  // express and pg are imported as ES modules: only modules an instrumentation asks for are hooked.
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel()
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions)

  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  })
  // The global tracer, AsyncLocalStorage context and W3C traceparent propagation.
  provider.register()
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? '') }),
      new ExpressInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  })
  await waitForAllMessagesAcknowledged()

  // The servers' shutdown flushes (flushTraces) before process.exit; a natural end flushes here.
  process.once('beforeExit', () => void provider.forceFlush().catch(() => {}))
}
