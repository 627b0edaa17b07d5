/** The in-memory adapters: every port, embedded. */
import { Layer } from "effect"
import type { Platform } from "../../domain/platform.js"
import { RandomIdsLayer, seededIdsLayer } from "./ids.js"
import { staticPlatformsLayer } from "./platforms.js"
import { MemoryStoreLayer } from "./store.js"
import { HttpWebhookSenderLayer } from "../webhook-http.js"
import { makeMemorySandboxFaultStore, SandboxFaultStore } from "../../ports/sandbox-faults.js"

export * from "./ids.js"
export * from "./platforms.js"
export * from "./store.js"
export { HttpWebhookSenderLayer, httpWebhookSender, LoopbackWebhookSenderLayer, webhookSenderLayer } from "../webhook-http.js"

/** Store, Ids and Platforms in memory, and webhooks sent over HTTP. Pass `seed` for deterministic ids. */
export const memoryLayer = (platforms: ReadonlyArray<Platform>, options?: { readonly seed?: number }) =>
  Layer.mergeAll(
    MemoryStoreLayer,
    options?.seed === undefined ? RandomIdsLayer : seededIdsLayer(options.seed),
    staticPlatformsLayer(platforms),
    HttpWebhookSenderLayer,
    // Fault rules of this app's sandbox platforms (docs/sandbox.md#fault-injection).
    Layer.sync(SandboxFaultStore, makeMemorySandboxFaultStore)
  )
