/**
 * The one table from a kind of resource to the code of its 404 (docs/errors.md, "Not
 * found"): the reference's `Error404` value where its enum has one for that kind, and the
 * generic `NOT_FOUND` only for kinds it has none for (docs/decisions.md). Every "no such
 * resource" in src/operations goes through `missing`, so the code follows the kind of the
 * resource that is missing, whichever operation or parameter named it.
 *
 * A resource named in the request body of an operation whose reference entry lists no
 * 404 (a create such as `POST /quotes`) is not a 404 at all: it is `unknownReference`,
 * 400 `INVALID_INPUT` naming the field (constraint `exists`).
 */
import { type Error400, type Error404, type Error404Code, invalidInput, notFound } from "../domain/errors.js"

export const NOT_FOUND_CODES = {
  // The reference's Error404 enum
  customer: "USER_NOT_FOUND",
  quote: "QUOTE_NOT_FOUND",
  /** Payments and card transactions alike: both are rows of GET /transactions. */
  transaction: "TRANSACTION_NOT_FOUND",
  token: "TOKEN_NOT_FOUND",
  invitation: "INVITATION_NOT_FOUND",
  bulkUploadJob: "BULK_UPLOAD_JOB_NOT_FOUND",
  stablecoinProviderAccount: "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND",
  /** A well-formed UMA address no receiver answers at. */
  umaReceiver: "UMA_NOT_FOUND",
  // No value in the reference's enum: the generic code
  internalAccount: "NOT_FOUND",
  externalAccount: "NOT_FOUND",
  /** An id that may be an internal or an external account (money requests). */
  account: "NOT_FOUND",
  beneficialOwner: "NOT_FOUND",
  document: "NOT_FOUND",
  verification: "NOT_FOUND",
  kycLink: "NOT_FOUND",
  card: "NOT_FOUND",
  agent: "NOT_FOUND",
  agentAction: "NOT_FOUND",
  deviceCode: "NOT_FOUND",
  credential: "NOT_FOUND",
  session: "NOT_FOUND",
  delegatedKey: "NOT_FOUND",
  scaFactor: "NOT_FOUND",
  twoFactorReset: "NOT_FOUND",
  stablecoin: "NOT_FOUND",
  stablecoinOperation: "NOT_FOUND",
  sandboxSnapshot: "NOT_FOUND",
  webhookDelivery: "NOT_FOUND"
} as const satisfies Record<string, Error404Code>

export type ResourceKind = keyof typeof NOT_FOUND_CODES

/** 404 for a missing resource of `kind`, with its code from the table. */
export const missing = (kind: ResourceKind, reason: string): Error404 => notFound(reason, NOT_FOUND_CODES[kind])

/**
 * 400 `INVALID_INPUT` for a body field naming a resource that is not there, on an
 * operation whose reference entry lists no 404 (`what`: "an active customer", ...).
 */
export const unknownReference = (field: string, id: string, what: string): Error400 =>
  invalidInput(`${field} ${id} is not ${what} of this platform`, [{
    field,
    constraint: "exists",
    message: `must be the id of ${what} of this platform`
  }])
