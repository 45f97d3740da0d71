// `npm run worker` has no web server: with METRICS_PORT set it listens there for Prometheus and
// probes only (/metrics, /livez, /readyz), with the same access rule for /metrics as the web's.
import { createServer, type Server } from 'node:http'
import { answerMetrics } from '~/features/observability/http-metrics.server'
import { LIVE_ANSWER, readinessAnswer } from '~/features/health/probes.server'

export function startWorkerListener(options: { port: number; host: string; token: string | undefined }): Promise<Server> {
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://worker').pathname.replace(/\/$/, '')
    const answer = async () => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { Allow: 'GET, HEAD' }).end()
      if (pathname === '/metrics') return answerMetrics(req, res, options.token)
      if (pathname === '/livez') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(LIVE_ANSWER))
      if (pathname === '/readyz') {
        const ready = await readinessAnswer()
        return void res.writeHead(ready.status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(await ready.text())
      }
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not Found\n')
    }
    answer().catch(() => {
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve(server))
  })
}
