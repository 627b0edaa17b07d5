#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, the tarball installed into an empty folder,
# `npx payments-service` started there and answering an authenticated request (in memory,
# then on disk with --data-dir, across a restart), `--help`, and every export of the
# library imported by its package name. Prints one closing line with the tarball's size.
# Needs the registry (the tarball's dependencies are installed) and loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# The project's pinned Node (the `node` devDependency) first, as npm scripts would have
# it: the package's engines.node is >=22.19 and the system Node may be older.
if [ -x "$repo/node_modules/.bin/node" ]; then
  export PATH="$repo/node_modules/.bin:$PATH"
fi
export NO_COLOR=1 FORCE_COLOR=0
echo "package check: node $(node --version), npm $(npm --version)"

[ -f dist/server.js ] || npm run build

work=$(mktemp -d "${TMPDIR:-/tmp}/payments-service-package.XXXXXX")
server_pid=""
# The server runs in its own process group (job control on), stopped as Ctrl-C would stop
# it: SIGTERM to the whole group. npx does not pass a SIGTERM on to the command it runs.
set -m
# Fails when the server is still running 10 s after SIGTERM (it is then killed).
stop_server() {
  local pid=$server_pid
  server_pid=""
  [ -n "$pid" ] || return 0
  kill -TERM -- "-$pid" 2> /dev/null || true
  for _ in $(seq 1 100); do
    kill -0 -- "-$pid" 2> /dev/null || return 0
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2> /dev/null || true
  echo "payments-service did not stop within 10 s of SIGTERM" >&2
  return 1
}
cleanup() {
  stop_server || true
  rm -rf "$work"
}
trap cleanup EXIT

# 1. The tarball.
mkdir "$work/pack" "$work/app"
npm pack --json --pack-destination "$work/pack" > "$work/pack.json"
read -r tarball packed unpacked entries < <(node -e '
const [info] = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
console.log(info.filename, info.size, info.unpackedSize, info.entryCount)
' "$work/pack.json")
tarball="$work/pack/$tarball"
# The command is executable in the tarball itself (mode 755), not only once npm links it.
mode=$(tar -tvzf "$tarball" package/dist/server.js | awk '{print $1}')
[[ $mode == -rwxr-xr-x ]] || { echo "dist/server.js is $mode in the tarball, not executable" >&2; exit 1; }
head -n 1 < <(tar -xOzf "$tarball" package/dist/server.js) | grep -qx '#!/usr/bin/env node' \
  || { echo "dist/server.js lacks the #!/usr/bin/env node line" >&2; exit 1; }

# 2. An empty project that depends on it.
cd "$work/app"
npm init -y > /dev/null
npm install --no-audit --no-fund "$tarball"

# 3. The command: linked by npm, then --help, --version, a usage error. (`npx --no --`:
# the local command only, never one fetched from the registry.)
[ -x node_modules/.bin/payments-service ] || { echo "npm did not link the payments-service command" >&2; exit 1; }
npx --no -- payments-service --help > "$work/help.txt"
grep -q -- "--database-url" "$work/help.txt" || { echo "--help does not list the options" >&2; exit 1; }
version=$(npx --no -- payments-service --version)
[ "$version" = "$(node -p 'require("payments-service/package.json").version')" ] \
  || { echo "--version printed '$version'" >&2; exit 1; }
status=0
npx --no -- payments-service --no-such-flag 2> "$work/usage.txt" || status=$?
[ "$status" -eq 2 ] && grep -q "unknown option --no-such-flag" "$work/usage.txt" \
  || { echo "an unknown flag exited $status: $(cat "$work/usage.txt")" >&2; exit 1; }

free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'; }

# Starts `npx payments-service "$@"` in the background and waits for its banner.
start_server() {
  : > "$work/server.log"
  npx --no -- payments-service "$@" > "$work/server.log" 2>&1 &
  server_pid=$!
  disown "$server_pid" # no "Terminated" job notices; stop_server waits for the group instead
  for _ in $(seq 1 600); do
    grep -q "Try: curl" "$work/server.log" && return 0
    kill -0 "$server_pid" 2> /dev/null || break
    sleep 0.1
  done
  echo "payments-service $* did not start:" >&2
  cat "$work/server.log" >&2
  exit 1
}

# Calls the API with the sandbox credentials; prints the customers' totalCount.
# Usage: api PORT GET|POST-CUSTOMER
api() {
  node - "$1" "$2" << 'EOF'
const [port, action] = process.argv.slice(2)
const base = `http://127.0.0.1:${port}/2025-10-13`
const headers = { authorization: "Basic " + Buffer.from("sandbox_client_id:sandbox_client_secret").toString("base64") }
if (action === "POST-CUSTOMER") {
  const res = await fetch(`${base}/customers`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ customerType: "INDIVIDUAL", fullName: "Ada Lovelace" })
  })
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST /customers answered ${res.status}: ${await res.text()}`)
}
const res = await fetch(`${base}/customers`, { headers })
const type = res.headers.get("content-type") ?? ""
if (res.status !== 200 || !type.includes("application/json")) throw new Error(`GET /customers answered ${res.status} ${type}: ${await res.text()}`)
const body = await res.json()
if (!Array.isArray(body.data)) throw new Error(`GET /customers is not a list: ${JSON.stringify(body)}`)
const unauthorized = await fetch(`${base}/customers`)
if (unauthorized.status !== 401) throw new Error(`GET /customers without credentials answered ${unauthorized.status}`)
console.log(body.totalCount)
EOF
}

# 4. In memory, on a free port: the banner (as npm start prints it) and an authenticated list.
port=$(free_port)
start_server --port "$port"
grep -q "API base URL: http://127.0.0.1:$port/2025-10-13" "$work/server.log" \
  || { echo "unexpected banner:" >&2; cat "$work/server.log" >&2; exit 1; }
grep -q "Store: *in memory" "$work/server.log" || { echo "not in memory:" >&2; cat "$work/server.log" >&2; exit 1; }
[ "$(api "$port" GET)" = 0 ] || { echo "a fresh in-memory server has customers" >&2; exit 1; }
stop_server

# 5. On disk (PGlite): a customer survives a restart.
port=$(free_port)
start_server --port "$port" --data-dir "$work/data"
[ "$(api "$port" POST-CUSTOMER)" = 1 ] || { echo "--data-dir: the new customer is not listed" >&2; exit 1; }
stop_server
start_server --port "$port" --data-dir "$work/data"
[ "$(api "$port" GET)" = 1 ] || { echo "--data-dir: the customer did not survive a restart" >&2; exit 1; }
stop_server

# 6. The library by its package name: every export with its types file. `./testing` needs
# fast-check, an optional peer dependency this project does not install; it is only resolved.
node --input-type=module - << 'EOF'
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
const require = createRequire(join(process.cwd(), "package.json"))
const root = dirname(require.resolve("payments-service/package.json"))
const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
const loaded = []
for (const [subpath, target] of Object.entries(exports)) {
  if (typeof target === "string") continue
  const name = subpath === "." ? "payments-service" : `payments-service/${subpath.slice(2)}`
  if (!existsSync(join(root, target.types))) throw new Error(`${name}: types file ${target.types} is missing`)
  const url = import.meta.resolve(name)
  if (subpath === "./testing") continue
  const module = await import(url)
  if (Object.keys(module).length === 0) throw new Error(`${name} exports nothing`)
  loaded.push(name)
}
const root_ = await import("payments-service")
const memory = await import("payments-service/memory")
const http = await import("payments-service/http")
if (typeof root_.primaryIdentifier !== "function" || typeof memory.memoryLayer !== "function" || typeof http.makeWebHandler !== "function") {
  throw new Error("payments-service's entries are incomplete")
}
console.log(`imports by package name: ${loaded.join(", ")}`)
EOF

kb() { awk -v b="$1" 'BEGIN { printf "%.1f kB", b / 1000 }'; }
echo "package check passed: $(basename "$tarball") $(kb "$packed") packed, $(kb "$unpacked") unpacked, $entries files; npx payments-service answered in memory and with --data-dir"
