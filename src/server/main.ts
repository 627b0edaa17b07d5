import "effect/schema/SchemaJITCompiler/enable"
/**
 * `npm start`: the reference server on the embedded (in-memory) store.
 * HOST (default 127.0.0.1), PORT (default 8080), PAYMENTS_CONFIG (a JSON file of
 * platforms; without it one sandbox platform with documented credentials).
 */
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { PaymentsConfig, type Platform, platformFromConfig, SANDBOX_PLATFORM } from "../domain/platform.js"
import { API_VERSION } from "../http/api.js"
import { memoryApp } from "../http/app.js"

const loadPlatforms = (): ReadonlyArray<Platform> => {
  const path = process.env["PAYMENTS_CONFIG"]
  if (path === undefined || path === "") return [SANDBOX_PLATFORM]
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, "utf8"))
  } catch (e) {
    throw new Error(`PAYMENTS_CONFIG ${path} could not be read as JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  const decoded = Schema.decodeUnknownExit(PaymentsConfig, { errors: "all" })(raw)
  if (decoded._tag === "Failure") throw new Error(`PAYMENTS_CONFIG ${path} is not a valid platforms file: ${String(decoded.cause)}`)
  return decoded.value.platforms.map(platformFromConfig)
}

const host = process.env["HOST"] ?? "127.0.0.1"
const port = Number(process.env["PORT"] ?? "8080")
const platforms = loadPlatforms()

const banner = Effect.sync(() => {
  const base = `http://${host}:${port}/${API_VERSION}`
  const lines = [
    `payments-service reference server listening`,
    `  API base URL: ${base}`,
    `  OpenAPI:      http://${host}:${port}/openapi.json`,
    `  Docs:         http://${host}:${port}/docs`,
    `  Platforms (HTTP Basic client id / secret):`,
    ...platforms.map((p) => `    ${p.id}: ${p.clientId} / ${p.clientSecret}${p.settings.sandbox ? " (sandbox)" : ""}`),
    `  Try: curl -u ${platforms[0]!.clientId}:${platforms[0]!.clientSecret} ${base}/customers`
  ]
  console.log(lines.join("\n"))
})

const ServerLayer = HttpRouter.serve(memoryApp({ platforms }), { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { port, host })),
  Layer.tap(() => banner)
)

Layer.launch(ServerLayer).pipe(NodeRuntime.runMain)
