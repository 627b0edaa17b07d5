/** The Ids port: where every generated id and nonce comes from, so tests can seed it. */
import { Context, type Effect } from "effect"
import type { ResourcePrefix } from "../domain/ids.js"

export class Ids extends Context.Service<Ids, {
  /** A new `<prefix>:<uuid>` id. */
  readonly make: (prefix: ResourcePrefix) => Effect.Effect<string>
  /** A bare UUID, for nonces and challenge ids. */
  readonly uuid: Effect.Effect<string>
}>()("payments-service/ports/Ids") {}
