#!/usr/bin/env bash
# The PostgreSQL the integration tests run on, found or made. Prints its URL on stdout; prints nothing
# (and the reason on stderr) when there is none to be had, so the caller counts those tests as skipped.
#   1. TEST_DATABASE_URL, when set.
#   2. A server on 127.0.0.1:5432 that lets `postgres` in without a password (this kind of machine has one).
#   3. As root on Debian: Debian's PostgreSQL (installed when missing), in a cluster of the suite's own under
#      /tmp (trust auth, port 55432), so the machine's own clusters and their pg_hba.conf stay untouched.
#      `scripts/test-postgres.sh stop` stops that cluster.
set -uo pipefail

OWN_DIR=/tmp/facet-test-postgres
OWN_PORT=55432

own_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

if [ "${1:-}" = stop ]; then
  bin=$(own_bin)
  if [ -n "$bin" ] && [ -f "$OWN_DIR/data/postmaster.pid" ]; then
    runuser -u postgres -- "$bin/pg_ctl" -D "$OWN_DIR/data" -m fast stop >/dev/null 2>&1 || true
  fi
  exit 0
fi

if [ -n "${TEST_DATABASE_URL:-}" ]; then echo "$TEST_DATABASE_URL"; exit 0; fi

# Can `postgres` reach database `test` on host:port without a password? Creates `test` when missing.
reachable() {
  local host=$1 port=$2
  command -v psql >/dev/null || return 1
  PGCONNECT_TIMEOUT=3 psql -h "$host" -p "$port" -U postgres -d postgres -w -Atqc 'select 1' >/dev/null 2>&1 || return 1
  if ! PGCONNECT_TIMEOUT=3 psql -h "$host" -p "$port" -U postgres -d test -w -Atqc 'select 1' >/dev/null 2>&1; then
    PGCONNECT_TIMEOUT=3 psql -h "$host" -p "$port" -U postgres -d postgres -w -qc 'create database test' >/dev/null 2>&1 || return 1
  fi
}

if reachable 127.0.0.1 5432; then echo "postgres://postgres@127.0.0.1:5432/test"; exit 0; fi

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "no PostgreSQL: nothing answers on 127.0.0.1:5432 and this is not root on Debian (set TEST_DATABASE_URL)" >&2
  exit 0
fi

if [ -z "$(own_bin)" ]; then
  echo "Installing Debian's PostgreSQL for the integration tests" >&2
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }; then
    echo "no PostgreSQL: apt-get install postgresql failed" >&2
    exit 0
  fi
fi
bin=$(own_bin)

if [ ! -f "$OWN_DIR/data/PG_VERSION" ]; then
  rm -rf "$OWN_DIR" && mkdir -p "$OWN_DIR" && chown postgres: "$OWN_DIR"
  if ! runuser -u postgres -- "$bin/initdb" -D "$OWN_DIR/data" -U postgres --auth=trust >/dev/null 2>&1; then
    echo "no PostgreSQL: initdb in $OWN_DIR failed" >&2
    exit 0
  fi
fi
if ! reachable 127.0.0.1 "$OWN_PORT"; then
  runuser -u postgres -- "$bin/pg_ctl" -D "$OWN_DIR/data" -l "$OWN_DIR/log" -w -t 60 \
    -o "-p $OWN_PORT -k $OWN_DIR -c listen_addresses=127.0.0.1" start >/dev/null 2>&1
fi
if reachable 127.0.0.1 "$OWN_PORT"; then
  echo "postgres://postgres@127.0.0.1:$OWN_PORT/test"
else
  echo "no PostgreSQL: the suite's own cluster in $OWN_DIR did not start (see $OWN_DIR/log)" >&2
fi
