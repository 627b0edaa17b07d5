/**
 * The shapes endpoint definitions share (api.ts, groups/*.ts), so that a definition
 * states only what is particular to it. Each builder returns the options of
 * `HttpApiEndpoint.get/post/...`; the identifier and path stay at the call site:
 *
 *   HttpApiEndpoint.get("getToken", "/tokens/:tokenId", byId(tokenParams, ApiToken))
 *   HttpApiEndpoint.get("listTokens", "/tokens", { query: page({ name: ... }), success: ... })
 *   HttpApiEndpoint.post("createCard", "/cards", creates(CardCreateRequest, Card, CardErrors))
 */
import { Schema } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"
import { type HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { DateTimeString, IdempotencyHeaders, IdText, PageQuery } from "../domain/common.js"
import { Error400, Error403, Error404, Error409, Error429 } from "../domain/errors.js"
import type { Permission } from "../domain/token.js"
import { platformGroup } from "./api-base.js"
import { Concerns } from "./declarations.js"

/** A success schema answered with 201 Created. */
export const created = <S extends Schema.Top>(s: S) => s.pipe(HttpApiSchema.status(201))

/** A success schema answered with 202 Accepted. */
export const accepted = <S extends Schema.Top>(s: S) => s.pipe(HttpApiSchema.status(202))

/** The error sets many endpoints share. */
export const NotFoundOrConflict = [Error404, Error409]
export const InvalidOrConflict = [Error400, Error404, Error409]
/** What a money movement may answer: forbidden, missing, conflicting or rate limited. */
export const MoneyErrors = [Error403, Error404, Error409, Error429]

/** The list filters by creation and update time. */
export const CreatedUpdatedFilters = {
  createdAfter: Schema.optionalKey(DateTimeString),
  createdBefore: Schema.optionalKey(DateTimeString),
  updatedAfter: Schema.optionalKey(DateTimeString),
  updatedBefore: Schema.optionalKey(DateTimeString)
}

/** The list filters by a date range and the order of the answer. */
export const DateRangeFilters = {
  startDate: Schema.optionalKey(DateTimeString),
  endDate: Schema.optionalKey(DateTimeString),
  sortOrder: Schema.optionalKey(Schema.Literals(["asc", "desc"]))
}

/** The list filters of transactions by account identifier. */
export const AccountIdentifierFilters = {
  accountIdentifier: Schema.optionalKey(IdText),
  senderAccountIdentifier: Schema.optionalKey(IdText),
  receiverAccountIdentifier: Schema.optionalKey(IdText)
}

/** A list query: the paging parameters and the endpoint's own filters. */
export const page = <const F extends Schema.Struct.Fields>(filters: F) => ({ ...PageQuery, ...filters })

/** One resource by its path parameters: 404 when there is none. */
export const byId = <const P extends Schema.Struct.Fields, const S extends Schema.Top>(params: P, success: S) => ({
  params,
  success,
  error: Error404
})

/** Deleting the resource its path names: 204, with the endpoint's errors. */
export const deletes = <const P extends Schema.Struct.Fields, const E extends Schema.Top | ReadonlyArray<Schema.Top>>(params: P, error: E) => ({
  params,
  success: HttpApiSchema.NoContent,
  error
})

/** Creating a resource: 201 with it. */
export const creation = <const P extends Schema.Top, const S extends Schema.Top, const E extends Schema.Top | ReadonlyArray<Schema.Top>>(
  payload: P,
  success: S,
  error: E
) => ({ payload, success: created(success), error })

/** Creating a resource under an optional `Idempotency-Key`: 201 with it. */
export const creates = <const P extends Schema.Top, const S extends Schema.Top, const E extends Schema.Top | ReadonlyArray<Schema.Top>>(
  payload: P,
  success: S,
  error: E
) => ({ headers: IdempotencyHeaders, ...creation(payload, success, error) })

/** An action on the resource its path names, with the endpoint's payload, answer and errors. */
export const acts = <
  const P extends Schema.Struct.Fields,
  const B extends Schema.Top | ReadonlyArray<Schema.Top>,
  const S extends Schema.Top | ReadonlyArray<Schema.Top>,
  const E extends Schema.Top | ReadonlyArray<Schema.Top>
>(params: P, payload: B, success: S, error: E) => ({ params, payload, success, error })

/** What a group says about itself: its OpenAPI tag, and the permission its endpoints default to (declarations.ts). */
export interface GroupTag {
  readonly title: string
  readonly description?: string
  readonly permission?: Permission
  /** Every endpoint of the group is for sandbox platforms only (declarations.ts `sandboxOnly`). */
  readonly sandboxOnly?: boolean
}

/**
 * A group of endpoints under one OpenAPI tag, with its default permission, under the
 * platform's credentials and the version base (api-base.ts `platformGroup`).
 */
export const apiGroup = <const Id extends string, const A extends NonEmptyReadonlyArray<HttpApiEndpoint.Constraint>>(
  identifier: Id,
  tag: GroupTag,
  ...endpoints: A
) => {
  const made = HttpApiGroup.make(identifier)
  const concerns = {
    ...(tag.permission === undefined ? {} : { permission: tag.permission }),
    ...(tag.sandboxOnly === true ? { sandboxOnly: true } : {})
  }
  const declared = Object.keys(concerns).length === 0 ? made : made.annotate(Concerns, concerns)
  return platformGroup(declared.add(...endpoints)).annotateMerge(OpenApi.annotations({ title: tag.title, description: tag.description }))
}

/** A group of one endpoint that reads a static directory, with its OpenAPI description. */
export const directoryGroup = <
  const Id extends string,
  const E extends HttpApiEndpoint.Constraint & { readonly annotate: (key: typeof OpenApi.Description, value: string) => E }
>(
  identifier: Id,
  title: string,
  endpoint: E,
  description: string
) => apiGroup(identifier, { title }, endpoint.annotate(OpenApi.Description, description))
