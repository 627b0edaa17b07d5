#!/usr/bin/env bash
# Runs every example once (CI runs this from .ci/run). Each example must exit 0 on its
# own, within the time limit: one that hangs has left a resource open (a server, a pool).
# Exits non-zero if any example fails; the others still run, so one report shows them all.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
# The examples run in memory or on a throwaway cluster, never on a database of yours.
unset DATABASE_URL PAYMENTS_DATA_DIR

limit=120
failed=()
run() {
  local name=$1
  shift
  echo "=== $name"
  if ! timeout "$limit" "$@"; then
    echo "=== $name FAILED (exit code, or no exit within ${limit}s)" >&2
    failed+=("$name")
  fi
}

run example:embed npm run --silent example:embed
# A fresh PostgreSQL cluster and database (test/support/postgres.ts), stopped afterwards.
run example:postgres node --import tsx examples/with-postgres.ts npm run --silent example:postgres
run example:server npm run --silent example:server
run example:property npm run --silent example:property
run example:webhook npm run --silent example:webhook
run example:wallet npm run --silent example:wallet
run example:snapshots npm run --silent example:snapshots

if [ ${#failed[@]} -gt 0 ]; then
  echo "examples failed: ${failed[*]}" >&2
  exit 1
fi
echo "examples: all 6 passed"
