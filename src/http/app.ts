/**
 * The reference application as a Layer and as a fetch-style handler, wired to the
 * in-memory adapters. `npm start` serves it over node:http; tests call the handler
 * in-process.
 */
import { Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { memoryLayer } from "../adapters/memory/index.js"
import type { Platform } from "../domain/platform.js"
import { AppRoutes } from "./server.js"
import { VirtualClock } from "./virtual-clock.js"

export interface AppOptions {
  readonly platforms: ReadonlyArray<Platform>
  /** Seed for deterministic ids. */
  readonly seed?: number
}

/** The app's routes with the in-memory store, ids, events, platforms and a virtual clock. */
export const memoryApp = (options: AppOptions) =>
  AppRoutes.pipe(
    Layer.provide(memoryLayer(options.platforms, options.seed === undefined ? {} : { seed: options.seed })),
    Layer.provideMerge(VirtualClock.layer)
  )

/** A `(Request) => Promise<Response>` handler over the in-memory app, and its disposer. */
export const makeWebHandler = (options: AppOptions) =>
  HttpRouter.toWebHandler(memoryApp(options).pipe(Layer.provide(HttpServer.layerServices)), { disableLogger: true })
