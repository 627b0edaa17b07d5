/**
 * Discoveries (GET /discoveries): the banks and payment providers that receive in a
 * country and currency corridor, as the reference file's `DiscoveryListResponse`. Each
 * item has the reference's four fields (`bankName`, `displayName`, `country`,
 * `currency`) plus `paymentRails`, the rails a payout to that institution can take (our
 * addition: SPEC.md has discovery cover rails as well as banks and providers; the name
 * is the one the reference gives an external account's rails).
 */
import { Schema } from "effect"
import { CountryCode, CurrencyCode, NamedStruct } from "./common.js"
import { PaymentRail } from "./external-account.js"

/** The filters of GET /discoveries; each is decoded by its schema (a malformed one is a 400 naming it). */
export const DiscoveryQuery = {
  country: Schema.optionalKey(CountryCode),
  currency: Schema.optionalKey(CurrencyCode)
}

export const Discovery = NamedStruct("Discovery", {
  /** Canonical name: the value to pass as `bankName` when creating an external account. */
  bankName: Schema.String,
  displayName: Schema.String,
  /** ISO 3166-1 alpha-2. */
  country: Schema.String,
  /** ISO 4217. */
  currency: Schema.String,
  paymentRails: Schema.Array(PaymentRail)
})
export type Discovery = typeof Discovery.Type

export const DiscoveryListResponse = NamedStruct("DiscoveryListResponse", { data: Schema.Array(Discovery) })
export type DiscoveryListResponse = typeof DiscoveryListResponse.Type
