// Remix v2 with Vite reads no config file of its own: these are the Vite plugin's options,
// kept here so the framework settings live in one obvious place. vite.config.ts imports them.
import type { VitePluginConfig } from '@remix-run/dev'

export const remixConfig: VitePluginConfig = {
  // BUILD_DIR lets several builds (parallel test runs) keep out of each other's way.
  buildDirectory: process.env.BUILD_DIR ?? 'build',
  ignoredRouteFiles: ['**/*.test.{ts,tsx}', '**/.*'],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: true,
    v3_routeConfig: true,
  },
}
