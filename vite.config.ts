import { vitePlugin as remix } from '@remix-run/dev'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig } from 'vite'
import tsconfigPaths from 'vite-tsconfig-paths'
import { remixConfig } from './remix.config'

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true
  }
}

export default defineConfig({
  build: { cssMinify: true, sourcemap: false },
  server: { port: 3000 },
  plugins: [tailwindcss(), remix(remixConfig), tsconfigPaths()],
  ssr: {
    // Native and worker-backed packages stay outside the server bundle.
    external: ['sharp', 'onnxruntime-node', '@resvg/resvg-js', '@electric-sql/pglite', 'pg'],
  },
})
