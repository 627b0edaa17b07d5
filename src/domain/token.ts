/**
 * API tokens (docs/tokens.md): platform credentials a platform creates for itself, each
 * with permissions. The reference's `ApiToken`, `ApiTokenCreateRequest` and `Permission`.
 */
import { Schema } from "effect"
import { NamedStruct, NonEmptyTextUpTo, Timestamps } from "./common.js"

export const Permission = Schema.Literals(["VIEW", "TRANSACT", "MANAGE"]).annotate({
  identifier: "Permission",
  description: "VIEW: read everything, change nothing. TRANSACT: create and execute quotes and move money. MANAGE: platform config, API tokens, customers, webhooks, sandbox controls."
})
export type Permission = typeof Permission.Type

export const MAX_TOKEN_NAME_LENGTH = 255

export const ApiTokenCreateRequest = NamedStruct("ApiTokenCreateRequest", {
  name: NonEmptyTextUpTo(MAX_TOKEN_NAME_LENGTH),
  permissions: Schema.Array(Permission).check(
    Schema.isMinLength(1, { message: "must grant at least one permission" }),
    Schema.isMaxLength(3)
  )
})
export type ApiTokenCreateRequest = typeof ApiTokenCreateRequest.Type

export const ApiToken = NamedStruct("ApiToken", {
  id: Schema.String,
  name: Schema.String,
  permissions: Schema.Array(Permission),
  clientId: Schema.String,
  /** Only in the create answer: the secret is stored as a hash and never shown again. */
  clientSecret: Schema.optionalKey(Schema.String),
  ...Timestamps
})
export type ApiToken = typeof ApiToken.Type

/**
 * Whether permissions granted to a token allow an endpoint that requires `required`:
 * a token holding it, or (for VIEW) a token holding any permission, since every token
 * may read. MANAGE does not imply TRANSACT, nor TRANSACT MANAGE (docs/decisions.md).
 */
export const permits = (granted: ReadonlyArray<Permission>, required: Permission): boolean =>
  required === "VIEW" ? granted.length > 0 : granted.includes(required)
