/**
 * What every part of the HTTP API shares without depending on the API itself: its
 * identifier, version base and parse options, and how a group is put under the platform's
 * credentials. `api.ts` builds `PaymentsApi` with `apiOf`; a group's handlers are built
 * against `apiOf(theirGroup)` (concerns.ts `implement`), which parses requests exactly as
 * `PaymentsApi` does, so neither the groups nor the handlers import `api.ts`.
 */
import type { Context } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import { PlatformAuth, RequestGuard } from "./middleware.js"

export const API_ID = "payments-service"

export const API_VERSION = "2025-10-13"

/** The base of every path: `/2025-10-13`. */
export const VERSION_PREFIX = `/${API_VERSION}` as const

/** How request bodies are decoded: every invalid field is reported, not just the first. */
export const PAYLOAD_PARSE_OPTIONS = { errors: "all" } as const

/** A group of the API, as `apiOf` reads it. */
export type ApiGroup = HttpApiGroup.Constraint & { readonly annotations: Context.Context<never> }

/** The group each endpoint of an API built by `apiOf` belongs to (where its group's declared defaults live). */
const groupOfEndpoint = new WeakMap<HttpApiEndpoint.Constraint, ApiGroup>()

/** The group of an endpoint of an API built by `apiOf`. */
export const groupOf = (endpoint: HttpApiEndpoint.Constraint): ApiGroup | undefined => groupOfEndpoint.get(endpoint)

/** An API of these groups, decoding requests as `PaymentsApi` does. */
export const apiOf = <const A extends NonEmptyReadonlyArray<ApiGroup>>(...groups: A) => {
  for (const group of groups) {
    for (const endpoint of Object.values(group.endpoints)) groupOfEndpoint.set(endpoint, group)
  }
  return HttpApi.make(API_ID)
    .add(...groups)
    .annotate(HttpApi.PayloadParseOptions, PAYLOAD_PARSE_OPTIONS)
    .annotate(HttpApi.QueryParseOptions, { errors: "all" })
}

/** A group under the platform's credentials (HTTP Basic or an API token) and the version base. */
export const platformGroup = <Id extends string, E extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, E, TopLevel>
) => group.middleware(RequestGuard).middleware(PlatformAuth).prefix(VERSION_PREFIX)
