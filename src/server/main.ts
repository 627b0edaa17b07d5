import "effect/schema/SchemaJITCompiler/enable"
/**
 * The reference server: `npm start` (tsx, from a clone) and the package's
 * `payments-service` command (bin.ts, built to dist/server.js). Flags and environment
 * variables (./cli.ts, `--help`): --host/HOST (default 127.0.0.1), --port/PORT (default
 * 8080), --config/PAYMENTS_CONFIG (a JSON file of platforms; without it one sandbox
 * platform with documented credentials), and the store: --database-url/DATABASE_URL
 * (PostgreSQL), --data-dir/PAYMENTS_DATA_DIR (PGlite on disk) or neither (in memory).
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Layer, Schema } from "effect"
import { DETERMINISTIC_EPOCH_MILLIS, frozenClockLayer } from "../adapters/deterministic.js"
import { policyFor, presetEndpointRefusal } from "../adapters/webhook-http.js"
import { duplicatePlatformOf, PaymentsConfig, type Platform, platformFromConfig, SANDBOX_PLATFORM } from "../domain/platform.js"
import type { StoreInfo } from "../ports/store.js"
import { servicesFor } from "./services.js"
import { API_VERSION } from "../http/api.js"
import { serveReference } from "../http/node.js"
import { platformLines } from "./banner.js"
import { parseCommandLine, USAGE } from "./cli.js"

/** The package's version, from the nearest package.json above this file (src/server/ or dist/). */
const packageVersion = (): string => {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const file = join(dir, "package.json")
    if (existsSync(file)) {
      const pkg: unknown = JSON.parse(readFileSync(file, "utf8"))
      if (typeof pkg === "object" && pkg !== null && "name" in pkg && pkg.name === "payments-service" && "version" in pkg) {
        return String(pkg.version)
      }
    }
    const parent = dirname(dir)
    if (parent === dir) return "unknown"
    dir = parent
  }
}

const command = parseCommandLine(process.argv.slice(2), process.env)
if (command._tag === "Help") {
  console.log(USAGE)
  process.exit(0)
}
if (command._tag === "Version") {
  console.log(packageVersion())
  process.exit(0)
}
if (command._tag === "Invalid") {
  console.error(command.message)
  process.exit(command.exitCode)
}
const { configPath, configSource, host, port, store: choice, seed, webhookRetentionMillis, webhookDestinations } = command.settings

const loadPlatforms = (path: string | undefined): ReadonlyArray<Platform> => {
  if (path === undefined) return [SANDBOX_PLATFORM]
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, "utf8"))
  } catch (e) {
    throw new Error(`${configSource} ${path} could not be read as JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  const decoded = Schema.decodeUnknownExit(PaymentsConfig, { errors: "all" })(raw)
  if (decoded._tag === "Failure") throw new Error(`${configSource} ${path} is not a valid platforms file: ${String(decoded.cause)}`)
  const duplicate = duplicatePlatformOf(decoded.value.platforms)
  if (duplicate !== undefined) throw new Error(`${configSource} ${path}: ${duplicate}`)
  const loaded = decoded.value.platforms.map(platformFromConfig)
  // Seed documents named by entries, read now so a missing or broken file stops the start.
  decoded.value.platforms.forEach((entry, i) => {
    const platform = loaded[i]
    if (entry.seedDocument === undefined || platform === undefined) return
    const file = resolve(dirname(path), entry.seedDocument)
    try {
      seedDocuments.push({ platform, file, text: JSON.stringify(JSON.parse(readFileSync(file, "utf8"))) })
    } catch (e) {
      throw new Error(`${configSource} ${path}: the seed document ${file} of platform ${entry.id} could not be read as JSON: ${e instanceof Error ? e.message : String(e)}`)
    }
  })
  return loaded
}

/** The seed documents to apply at start (docs/sandbox.md#fixtures), in platforms-file order. */
const seedDocuments: Array<{ readonly platform: Platform; readonly file: string; readonly text: string }> = []

let platforms: ReadonlyArray<Platform>
try {
  platforms = loadPlatforms(configPath)
  // A preset webhook endpoint its platform's destinations refuse stops the start (docs/webhooks.md#destinations).
  const fallback = webhookDestinations === undefined ? {} : { fallback: webhookDestinations }
  for (const platform of platforms) {
    const refusal = presetEndpointRefusal(platform, fallback)
    if (refusal !== undefined) throw new Error(`${configSource} ${configPath}: the webhookEndpoint of platform ${platform.id} is refused (${refusal.rule}): ${refusal.message}`)
  }
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e))
  process.exit(1)
}

const banner = (actualPort: number, store: StoreInfo) => {
  const origin = `http://${host}:${actualPort}`
  const base = `${origin}/${API_VERSION}`
  return [
    `payments-service reference server listening`,
    `  API base URL: ${base}`,
    `  OpenAPI:      ${origin}/openapi.json`,
    `  Docs:         ${origin}/docs`,
    `  Dashboard:    ${origin}/dashboard`,
    `  Store:        ${store.description}`,
    ...(seed === undefined ? [] : [`  Deterministic: seed ${seed}, clock at ${new Date(DETERMINISTIC_EPOCH_MILLIS).toISOString()} (moves with POST /sandbox/clock/advance)`]),
    ...platformLines(platforms, configPath, base, (p) => policyFor(p, webhookDestinations === undefined ? {} : { fallback: webhookDestinations }).entries)
  ].join("\n")
}

const main = Effect.gen(function*() {
  // A deterministic run (--seed): seeded ids, a clock standing still, nothing in the background.
  const destinations = webhookDestinations === undefined ? {} : { webhookDestinations }
  const services = seed === undefined
    ? servicesFor(choice, platforms, destinations)
    : Layer.merge(servicesFor(choice, platforms, { seed, ...destinations }), frozenClockLayer())
  const { address, store } = yield* serveReference({
    services,
    host,
    port,
    ...(seed === undefined ? {} : { schedulerIntervalMillis: false as const }),
    ...(webhookRetentionMillis === undefined ? {} : { webhookRetentionMillis })
  })
  const actualPort = address._tag === "UnixPathAddress" ? port : address.port
  yield* applySeedDocuments(actualPort)
  yield* Effect.sync(() => console.log(banner(actualPort, store)))
  return yield* Effect.never
})

/**
 * Applies each platform's seed document with POST /sandbox/seed, as a client would, before
 * the banner: a refused document is a failure to start (its answer in the message).
 */
const applySeedDocuments = (actualPort: number) =>
  Effect.forEach(seedDocuments, ({ platform, file, text }) =>
    Effect.tryPromise({
      try: async () => {
        const loopback = host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host
        const res = await fetch(`http://${loopback}:${actualPort}/${API_VERSION}/sandbox/seed`, {
          method: "POST",
          headers: {
            authorization: `Basic ${Buffer.from(`${platform.clientId}:${platform.clientSecret}`).toString("base64")}`,
            "content-type": "application/json"
          },
          body: text
        })
        if (res.status !== 200) throw new Error(`the seed document ${file} of platform ${platform.id} was refused: ${res.status} ${await res.text()}`)
      },
      catch: (e) => e instanceof Error ? e : new Error(String(e))
    }), { discard: true })

/** Why the server could not start, in one line (the database unreachable, the data directory in use, …). */
const startupFailure = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const message = error instanceof Error ? error.message : String(error)
  return `payments-service could not start (store: ${choice.kind}): ${message}`
}

// runMain interrupts on SIGINT/SIGTERM; the scope then closes the listener. A failure to
// start is one line on stderr and exit code 1, as configuration errors are.
NodeRuntime.runMain(
  Effect.scoped(main).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : Effect.sync(() => {
          console.error(startupFailure(cause))
          process.exit(1)
        })
    )
  ),
  { disableErrorReporting: true }
)
