// The container deployment files: compose.yaml (roles, secrets from .env, the monitoring profile), the
// Prometheus and Grafana provisioning it mounts, the Dockerfile's safety rules and .dockerignore.
// No Docker engine runs here: scripts/docker-check.sh builds and runs the image itself; this proves the files
// compose reads say what the README promises (docs/decisions/110, 112).
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = path.resolve(__dirname, '../..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

interface Service {
  build?: unknown
  image?: string
  command?: string[]
  env_file?: string | string[]
  environment?: Record<string, string>
  ports?: string[]
  volumes?: string[]
  profiles?: string[]
  depends_on?: Record<string, { condition: string }> | string[]
  healthcheck?: { disable?: boolean; test?: string[] }
  secrets?: string[]
  container_name?: string
}
interface Compose {
  services: Record<string, Service>
  secrets?: Record<string, { environment?: string; file?: string }>
  volumes?: Record<string, unknown>
}

// merge: compose files use YAML merge keys (<<) for what the web and worker roles share.
const compose = parse(read('compose.yaml'), { merge: true }) as Compose
const { web, worker, db, prometheus, grafana } = compose.services

describe('compose.yaml', () => {
  it('runs the web and worker roles as separate services of one image on PostgreSQL', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['db', 'grafana', 'prometheus', 'web', 'worker'])
    expect(web.image).toBe(worker.image)
    expect(web.environment?.WORKER_CONCURRENCY).toBe('0')
    // What `npm run worker` runs, without npm: it would exit at once on SIGTERM and end the container before the drain.
    expect(worker.command).toEqual(['node', '--import', 'tsx', '--import', './app/telemetry/register.ts', 'scripts/worker.ts'])
    expect(JSON.parse(read('package.json')).scripts.worker).toContain(worker.command?.slice(1).join(' '))
    // scripts/docker-check.sh proves this topology with the same command.
    expect(read('scripts/docker-check.sh')).toContain(`"$IMAGE" ${worker.command?.join(' ')}`)
    for (const role of [web, worker]) {
      expect(role.environment?.DATABASE_URL).toMatch(/^postgres:\/\/facet:.*@db:5432\/facet$/)
      expect(role.depends_on).toEqual({ db: { condition: 'service_healthy' } })
    }
    expect(db.image).toMatch(/^postgres:15/)
    expect(db.healthcheck?.test?.join(' ')).toContain('pg_isready')
  })

  it('lets the worker scale (--scale worker=3): no published port, no fixed name, no HTTP healthcheck', () => {
    expect(worker.ports).toBeUndefined()
    expect(worker.container_name).toBeUndefined()
    expect(worker.healthcheck).toEqual({ disable: true })
    expect(web.ports).toEqual(['3000:3000'])
  })

  it('reads the secrets from a .env file written once, never generates them on start', () => {
    for (const role of [web, worker]) {
      expect(role.env_file).toBe('.env')
      for (const secret of ['SESSION_SECRET', 'RESULTS_KEY', 'METRICS_TOKEN']) {
        expect(role.environment).not.toHaveProperty(secret)
      }
    }
    expect(read('compose.yaml')).not.toMatch(/openssl rand[^\n]*docker compose up/)
    // The README's setup step writes every secret the services read from .env.
    const readmeStep = read('README.md').match(/printf '([^']*)'[^\n]*> \.env/)
    expect(readmeStep?.[1]).toBe('SESSION_SECRET=%s\\nRESULTS_KEY=%s\\nMETRICS_TOKEN=%s\\n')
  })

  it('keeps the web data on a named volume', () => {
    expect(web.volumes).toContain('studio-data:/app/data')
    expect(compose.volumes).toHaveProperty('studio-data')
  })

  it('starts Prometheus and Grafana only with --profile monitoring', () => {
    expect(prometheus.profiles).toEqual(['monitoring'])
    expect(grafana.profiles).toEqual(['monitoring'])
    for (const name of ['web', 'worker', 'db']) expect(compose.services[name].profiles).toBeUndefined()
    // Their consoles listen on loopback only.
    expect(prometheus.ports).toEqual(['127.0.0.1:9090:9090'])
    expect(grafana.ports).toEqual(['127.0.0.1:3001:3000'])
  })

  it('mounts provisioning files that exist in the repository', () => {
    const binds = [...(prometheus.volumes ?? []), ...(grafana.volumes ?? [])].filter((v) => v.startsWith('./'))
    expect(binds.length).toBe(3)
    for (const bind of binds) expect(existsSync(path.join(root, bind.split(':')[0]))).toBe(true)
  })
})

describe('monitoring provisioning', () => {
  const prometheusConfig = parse(read('deploy/prometheus/prometheus.yml')) as {
    scrape_configs: { metrics_path: string; authorization: { type: string; credentials_file: string }; static_configs: { targets: string[] }[] }[]
  }
  const datasources = parse(read('deploy/grafana/provisioning/datasources/prometheus.yaml')) as {
    datasources: { uid: string; url: string }[]
  }
  const dashboard = JSON.parse(read('deploy/grafana/dashboards/facet-studio.json')) as {
    uid: string
    panels: { title: string; datasource: { uid: string }; targets: { expr: string }[] }[]
  }

  it('scrapes the web service with METRICS_TOKEN as a bearer token (the compose secret)', () => {
    const [job] = prometheusConfig.scrape_configs
    expect(job.metrics_path).toBe('/metrics')
    expect(job.static_configs[0].targets).toEqual(['web:3000'])
    expect(job.authorization).toEqual({ type: 'Bearer', credentials_file: '/run/secrets/metrics_token' })
    expect(prometheus.secrets).toEqual(['metrics_token'])
    expect(compose.secrets?.metrics_token).toEqual({ environment: 'METRICS_TOKEN' })
  })

  it('has a dashboard whose panels query the provisioned data source for the studio metrics', () => {
    const [source] = datasources.datasources
    expect(source.url).toBe('http://prometheus:9090')
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(10)
    for (const panel of dashboard.panels) expect(panel.datasource.uid).toBe(source.uid)
    const queried = new Set(
      dashboard.panels.flatMap((panel) => panel.targets.flatMap((t) => t.expr.match(/\b(facet|nodejs|process)_[a-z_]+/g) ?? [])),
    )
    for (const metric of [
      'facet_http_requests_total',
      'facet_http_request_duration_seconds_bucket',
      'facet_tool_runs_total',
      'facet_tool_run_duration_seconds_bucket',
      'facet_tool_queue_wait_seconds_bucket',
      'facet_queue_jobs',
      'facet_queue_oldest_waiting_seconds',
      'facet_credits_charged_total',
      'facet_credits_refunded_total',
      'facet_webhook_deliveries_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(queried).toContain(metric)
    }
  })
})

describe('Dockerfile and .dockerignore', () => {
  const dockerfile = read('Dockerfile')
  const ignored = read('.dockerignore').split('\n').map((line) => line.trim())

  it('needs nothing from Docker Hub but the base image, and installs exactly the lockfile', () => {
    expect(dockerfile).not.toMatch(/^#\s*syntax=/im)
    expect(dockerfile).toMatch(/^RUN npm ci\b/m)
    expect(dockerfile).not.toMatch(/npm install/)
  })

  it('runs as a fixed non-root uid under tini, app files owned by root', () => {
    expect(dockerfile).toMatch(/useradd --uid 10001 --gid 10001/)
    expect(dockerfile).toMatch(/^USER 10001:10001$/m)
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "-g", "--"\]$/m)
    expect(dockerfile).not.toMatch(/--chown/)
    expect(dockerfile).toMatch(/^HEALTHCHECK /m)
  })

  it('builds for amd64 and arm64: the build stages on the build machine, only the runtime on the target (decision 181)', () => {
    const stages = dockerfile.match(/^FROM .*$/gm)
    expect(stages).toEqual([
      'FROM --platform=$BUILDPLATFORM ${BUILD_NODE_IMAGE} AS deps',
      'FROM deps AS prod-deps',
      'FROM deps AS build',
      'FROM --platform=$TARGETPLATFORM ${NODE_IMAGE} AS runtime',
    ])
    expect(dockerfile).toMatch(/^ARG BUILD_NODE_IMAGE=\$\{NODE_IMAGE\}$/m)
    // The runtime's native packages and onnxruntime's binaries are the target's, not the build machine's.
    expect(dockerfile).toMatch(/npm ci --omit=dev --os="\$target_platform" --cpu="\$target_arch" --ignore-scripts/)
    expect(dockerfile).toMatch(/ls node_modules\/onnxruntime-node\/bin\/napi-v\*\/"\$target_platform"\/"\$target_arch"\/\*\.node/)
  })

  it('docker-check.sh refuses a platform it cannot check, before it touches podman', () => {
    const run = spawnSync('bash', [path.join(root, 'scripts/docker-check.sh'), '--platform', 'linux/s390x'], { encoding: 'utf8' })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain("PLATFORM takes linux/amd64 or linux/arm64, not 'linux/s390x'")
    expect(run.stdout).not.toContain('== tools')
  })

  it('keeps local data, models, tests, caches and dependencies out of the build context', () => {
    for (const entry of ['node_modules', 'data', 'models-local', 'models/*.onnx', 'tests', '.git', '.env', 'build', '.cache']) {
      expect(ignored).toContain(entry)
    }
  })
})
