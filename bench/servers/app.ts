import "effect/schema/SchemaJITCompiler/enable"
/** The reference server (HttpApi, validation, rules, in-memory store) on an ephemeral port. */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { memoryApp } from "../../src/http/app.js"
import { benchPlatform } from "./platform.js"

const ServerLayer = HttpRouter.serve(memoryApp({ platforms: [benchPlatform] }), { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

const program = Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const address = server.address
  if (address._tag !== "UnixPathAddress") process.send?.({ port: address.port })
  return yield* Effect.never
})

const fiber = Effect.runFork(Effect.scoped(Effect.provide(program, ServerLayer)))
process.on("SIGTERM", () => {
  fiber.interruptUnsafe()
  process.exit(0)
})
