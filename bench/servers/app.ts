import "effect/schema/SchemaJITCompiler/enable"
/** The reference server (HttpApi, validation, rules, the store DATABASE_URL / PAYMENTS_DATA_DIR choose) on an ephemeral port. */
import { Effect } from "effect"
import { serveReference } from "../../src/http/node.js"
import { servicesFor, storeChoiceFromEnv } from "../../src/server/services.js"
import { benchMoneyPlatform, benchPlatform } from "./platform.js"

const program = Effect.gen(function*() {
  // BENCH_DIRECT_LANE=0 measures the HttpApi path alone.
  const choice = storeChoiceFromEnv(process.env)
  if (typeof choice === "string") return yield* Effect.die(new Error(choice))
  const { address } = yield* serveReference({
    services: servicesFor(choice, [benchPlatform, benchMoneyPlatform]),
    host: "127.0.0.1",
    port: 0,
    directLane: process.env["BENCH_DIRECT_LANE"] !== "0"
  })
  if (address._tag !== "UnixPathAddress") process.send?.({ port: address.port })
  return yield* Effect.never
})

const fiber = Effect.runFork(Effect.scoped(program))
// The bench asks for CPU time to report CPU per request.
process.on("message", (m) => {
  if (m === "cpu") {
    const u = process.cpuUsage()
    process.send?.({ cpuMicros: u.user + u.system })
  }
})
process.on("SIGTERM", () => {
  fiber.interruptUnsafe()
  process.exit(0)
})
// The bench went away without stopping us (killed): don't outlive it.
process.on("disconnect", () => process.exit(0))
