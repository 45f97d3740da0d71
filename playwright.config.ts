import { defineConfig, devices } from '@playwright/test'
import { OPERATOR_EMAILS } from './tests/e2e/support/operators'

const PORT = Number(process.env.E2E_PORT ?? 3210)
export const E2E_DATA_DIR = `tests/.tmp/e2e-data-${PORT}`
/** A second studio, with no models installed. */
export const NO_MODELS_PORT = PORT + 1
/** A third studio whose time limit is 5 s and that runs nothing (web only): images too slow for it are refused. */
export const SHORT_LIMIT_PORT = PORT + 2

// Playwright cannot download its own browsers here: Debian's Chromium runs the suite, in its headless shell
// (package chromium-headless-shell, the browser Playwright itself uses for headless runs): the same engine
// without the desktop browser around it, about a third less time for the workspace journeys, the same
// screenshots (decision 152, part five). CHROMIUM_PATH=/usr/bin/chromium runs them in the whole browser.
const chromium = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-sync',
  ],
}

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: `test-results/${PORT}`,
  // A safety net, not a speed check: journeys wait on real work (model runs, server starts) until this
  // limit (UNTIL_TEST_TIMEOUT in tests/e2e/support/test.ts), and on a machine whose cores are busy
  // elsewhere a model run takes several times as long (decision 121).
  timeout: 120_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // A `.only` left in a journey would run it alone and pass the suite: refused in CI (.ci/run sets CI).
  forbidOnly: Boolean(process.env.CI),
  workers: 2,
  retries: 0,
  reporter: process.env.CI ? [['list'], ['json', { outputFile: process.env.PLAYWRIGHT_JSON ?? 'tests/.tmp/playwright.json' }]] : 'list',
  use: {
    baseURL: `http://localhost:${PORT}`,
    // No trace: recording one for every test cost about a quarter of the journeys' time (decision 152, part
    // three). To follow a failing journey, run it again with `--trace retain-on-failure` (README). Its one
    // hang without a trace, a full-page screenshot of a page that reloads itself, is cured where it was: the
    // screenshots helper's `selfRefreshing` (part four).
    trace: 'off',
    launchOptions: chromium,
  },
  // Every journey runs in both projects unless tagged: @js-only (needs scripting, or speaks HTTP or starts
  // processes, which the browser's setting does not change) or @no-js-only. A tagged test is left out of the
  // other project altogether: skipped inside its body, it paid for a browser page first.
  projects: [
    { name: 'js', grepInvert: /@no-js-only/, use: { ...devices['Desktop Chrome'], launchOptions: chromium } },
    { name: 'no-js', grepInvert: /@js-only/, use: { ...devices['Desktop Chrome'], javaScriptEnabled: false, launchOptions: chromium } },
  ],
  webServer: [
    {
      // The production build on a fresh embedded database, exactly as a self-hoster runs it.
      command: `rm -rf ${E2E_DATA_DIR} && node --import tsx server.ts`,
      url: `http://localhost:${PORT}/healthz`,
      reuseExistingServer: false,
      // Waited on /healthz (the signal); the limit only ends a start that will not come. On a machine whose
      // cores are busy elsewhere a start took longer than 120 s (decision 122).
      timeout: 300_000,
      env: {
        NODE_ENV: 'production',
        PORT: String(PORT),
        PUBLIC_URL: `http://localhost:${PORT}`,
        DATA_DIR: E2E_DATA_DIR,
        LOG_LEVEL: 'warn',
        // Every journey's browser comes from 127.0.0.1: one address, many visitors (decision 080).
        GUEST_IDENTITIES_PER_ADDRESS: '1000',
        // ...and every journey that needs an account signs up from it: the suite makes more than 50 an hour.
        SIGN_UPS_PER_ADDRESS: '10000',
        // New accounts sign up from addresses of their own, as a proxy reports them (signInNewUser): the
        // suite verifies more than the 60 tokens one address may try in 15 minutes.
        TRUST_PROXY: 'loopback',
        E2E: '1',
        // The operator console journey signs in as one of these (tests/e2e/console.spec.ts).
        OPERATOR_EMAILS: OPERATOR_EMAILS.join(','),
        BUILD_DIR: process.env.BUILD_DIR ?? 'build',
      },
    },
    {
      // The same studio with no models installed, for the "model not installed" state.
      command: `rm -rf ${E2E_DATA_DIR}-no-models && mkdir -p ${E2E_DATA_DIR}-no-models/models && node --import tsx server.ts`,
      url: `http://localhost:${NO_MODELS_PORT}/healthz`,
      reuseExistingServer: false,
      timeout: 300_000,
      env: {
        NODE_ENV: 'production',
        PORT: String(NO_MODELS_PORT),
        PUBLIC_URL: `http://localhost:${NO_MODELS_PORT}`,
        DATA_DIR: `${E2E_DATA_DIR}-no-models`,
        MODELS_DIR: `${E2E_DATA_DIR}-no-models/models`,
        WORKER_CONCURRENCY: '0',
        LOG_LEVEL: 'warn',
        // Every journey's browser comes from 127.0.0.1: one address, many visitors (decision 080).
        GUEST_IDENTITIES_PER_ADDRESS: '1000',
        // ...and every journey that needs an account signs up from it: the suite makes more than 50 an hour.
        SIGN_UPS_PER_ADDRESS: '10000',
        // New accounts sign up from addresses of their own, as a proxy reports them (signInNewUser): the
        // suite verifies more than the 60 tokens one address may try in 15 minutes.
        TRUST_PROXY: 'loopback',
        E2E: '1',
        BUILD_DIR: process.env.BUILD_DIR ?? 'build',
      },
    },
    {
      // The same studio with a 5 s time limit and no worker, for the refusal of an image too slow to finish in time.
      command: `rm -rf ${E2E_DATA_DIR}-short-limit && node --import tsx server.ts`,
      url: `http://localhost:${SHORT_LIMIT_PORT}/healthz`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: {
        NODE_ENV: 'production',
        PORT: String(SHORT_LIMIT_PORT),
        PUBLIC_URL: `http://localhost:${SHORT_LIMIT_PORT}`,
        DATA_DIR: `${E2E_DATA_DIR}-short-limit`,
        TOOL_TIMEOUT_MS: '5000',
        WORKER_CONCURRENCY: '0',
        LOG_LEVEL: 'warn',
        GUEST_IDENTITIES_PER_ADDRESS: '1000',
        // ...and every journey that needs an account signs up from it: the suite makes more than 50 an hour.
        SIGN_UPS_PER_ADDRESS: '10000',
        // New accounts sign up from addresses of their own, as a proxy reports them (signInNewUser): the
        // suite verifies more than the 60 tokens one address may try in 15 minutes.
        TRUST_PROXY: 'loopback',
        E2E: '1',
        BUILD_DIR: process.env.BUILD_DIR ?? 'build',
      },
    },
  ],
})
