/** The Ids port: where every generated id and nonce comes from, so tests can seed it. */
import { Context, type Effect } from "effect"
import type { ResourcePrefix } from "../domain/ids.js"

export class Ids extends Context.Service<Ids, {
  /** A new `<prefix>:<uuid>` id. */
  readonly make: (prefix: ResourcePrefix) => Effect.Effect<string>
  /** A bare UUID, for nonces and challenge ids. */
  readonly uuid: Effect.Effect<string>
  /**
   * Whether what it draws repeats from run to run (a seed: a deterministic run, or a test):
   * then what is drawn elsewhere must repeat too, or be derived instead (a webhook
   * signature's nonce, by RFC 6979).
   */
  readonly seeded: boolean
}>()("payments-service/ports/Ids") {}

/** A platform whose ids come from its own seeded stream (its `deterministicSeed`). */
export interface DeterministicIds {
  readonly platformId: string
  readonly seed: number
}

/**
 * The platform the current fiber draws ids for, when that platform runs deterministically
 * (docs/sandbox.md#deterministic-runs): set wherever work of the platform starts (the
 * request pipeline once it has authenticated, scheduler and webhook passes), read by the
 * Ids adapters to draw from the platform's own stream instead of the shared one.
 */
export const DeterministicPlatform = Context.Reference<DeterministicIds | undefined>(
  "payments-service/ports/DeterministicPlatform",
  { defaultValue: () => undefined }
)
