/**
 * A Node service that embeds the payments rules and operations in-process, with the
 * in-memory store: no HTTP server, no database. Everything the operations need (Store,
 * Ids, Platforms) comes from one Layer, so moving to PostgreSQL later changes only
 * that Layer (see embed-postgres.ts).
 *
 *   npm run example:embed
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
// published as: import { LoopbackWebhookSenderLayer, memoryLayer } from "payments-service/memory"
import { LoopbackWebhookSenderLayer, memoryLayer } from "../src/adapters/memory/index.js"
import { onboard, platform, summary } from "./shared/onboard.js"

const main = onboard(platform).pipe(
  Effect.flatMap((result) => Console.log(`embedded, in memory\n${summary(result)}`)),
  // Only the platforms listed here exist: operations for any other platform id find nothing.
  // Webhooks (if an endpoint were set) would go to loopback only: the examples never reach off the machine.
  Effect.provide(Layer.merge(memoryLayer([platform]), LoopbackWebhookSenderLayer))
)

// runMain reports a failure (a typed API error such as Error400) and exits 1; on
// success the process ends by itself once nothing is left running.
NodeRuntime.runMain(main)
