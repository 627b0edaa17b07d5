/**
 * GET /discoveries: the banks, providers and rails of a country and currency corridor,
 * from the static sandbox catalogue of rules/money/discoveries.ts. The filters were
 * decoded by their schemas; a well-formed country or currency the catalogue does not
 * list answers an empty list.
 */
import { Effect } from "effect"
import type { DiscoveryListResponse } from "../../domain/discovery.js"
import * as Discoveries from "../../rules/money/discoveries.js"

export interface DiscoveryQuery {
  readonly country?: string | undefined
  readonly currency?: string | undefined
}

export const getDiscoveries = (query: DiscoveryQuery): Effect.Effect<DiscoveryListResponse> =>
  Effect.sync(() => ({ data: Discoveries.discoveriesFor(query) }))
