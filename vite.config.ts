import { vitePlugin as remix } from '@remix-run/dev'
import tailwindcss from '@tailwindcss/vite'
import { constants } from 'node:zlib'
import { defineConfig } from 'vite'
import { compression, defineAlgorithm } from 'vite-plugin-compression2'
import tsconfigPaths from 'vite-tsconfig-paths'
import { remixConfig } from './remix.config'

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true
  }
}

export default defineConfig(({ isSsrBuild }) => ({
  build: {
    cssMinify: true,
    sourcemap: false,
    rollupOptions: {
      // Resource routes (the /api endpoints, /healthz, ...) have no UI, so their browser chunk is empty by
      // design: Rollup's "Generated an empty chunk" line for each of them (about 50) says nothing to act on.
      onwarn(warning, warn) {
        if (warning.code !== 'EMPTY_BUNDLE') warn(warning)
      },
    },
  },
  resolve: {
    // conform's zod adapter builds its coercion wrappers (lazy, optional, pipe, transform) from classic
    // zod, which cannot be tree-shaken (about 25 KB compressed). zod/mini exports the same four with the
    // same behaviour, and our client-side schemas are zod/mini already (decision 148).
    alias: [{ find: /^zod\/v4$/, replacement: 'zod/mini' }],
  },
  server: { port: 3000 },
  plugins: [
    tailwindcss(),
    remix(remixConfig),
    tsconfigPaths(),
    // The browser's files, compressed once at build time at the highest levels (brotli 11, gzip 9): about
    // 13 % fewer bytes than compressing on the fly, on every page (decision 148). server.ts serves them.
    !isSsrBuild &&
      compression({
        include: /\.(js|css|svg)$/,
        algorithms: [
          defineAlgorithm('brotliCompress', { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }),
          defineAlgorithm('gzip', { level: 9 }),
        ],
        logLevel: 'silent',
      }),
  ],
  ssr: {
    // Native and worker-backed packages stay outside the server bundle.
    external: ['sharp', 'onnxruntime-node', '@resvg/resvg-js', '@electric-sql/pglite', 'pg'],
  },
}))
