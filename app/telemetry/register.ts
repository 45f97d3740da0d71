// Preloaded by `npm start` and `npm run worker` (node --import, after tsx), before server.ts or the
// worker imports express and pg: OpenTelemetry can only patch a module that loads after it
// (docs/decisions/107). Without OTEL_EXPORTER_OTLP_ENDPOINT this reads the configuration and stops:
// the SDK is never imported, so tracing off costs nothing.
import { config } from '../config.server'

const settings = config()
if (settings.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const { startTracing } = await import('./tracing.server')
  await startTracing({ serviceName: settings.OTEL_SERVICE_NAME })
}
