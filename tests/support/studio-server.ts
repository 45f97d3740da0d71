// The studio's real HTTP path for integration tests: server.ts's Express application (every
// middleware, in its order, and Remix's request handler) listening on a free port, serving the route
// modules a test names. Only the Remix build is the test's own: the routes are the app's modules, as
// imported by the test, so they share its database; no page is rendered (resource routes only).
import { once } from 'node:events'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ServerBuild } from '@remix-run/node'
import * as entry from '~/entry.server'
import { createStudioApp, listenStudio } from '~/http/studio-app.server'
import { consoleGate } from '~/features/console/hidden-routes.server'

export interface RunningStudio {
  server: Server
  host: string
  port: number
  url: string
  close(): Promise<void>
}

/** routes: URL path (as in the route file, e.g. 'api/remove-bg') → the route module. */
export async function startStudio(routes: Record<string, unknown>): Promise<RunningStudio> {
  const manifest: ServerBuild['routes'] = {
    root: { id: 'root', path: '', module: {} as ServerBuild['routes'][string]['module'] },
  }
  for (const [path, module] of Object.entries(routes)) {
    const id = `routes/${path}`
    manifest[id] = { id, parentId: 'root', path, module: module as ServerBuild['routes'][string]['module'] }
  }
  const build = {
    mode: 'production',
    entry: { module: entry },
    routes: manifest,
    assets: { entry: { imports: [], module: '' }, routes: {}, url: '', version: 'test' },
    publicPath: '/',
    assetsBuildDirectory: 'tests/.tmp/no-client',
    future: { v3_fetcherPersist: true, v3_relativeSplatPath: true, v3_throwAbortReason: true, v3_lazyRouteDiscovery: true, v3_singleFetch: true, v3_routeConfig: true },
    isSpaMode: false,
  } as unknown as ServerBuild
  const app = createStudioApp({ build, production: true, buildDir: 'tests/.tmp/no-build', consoleGate })
  const server = listenStudio(app, 0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    server,
    host: '127.0.0.1',
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
