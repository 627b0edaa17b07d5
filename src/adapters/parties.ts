/**
 * The account identifiers a payment is listed by (GET /transactions `senderAccountIdentifier`,
 * `receiverAccountIdentifier`, `accountIdentifier`), the same on every store: an
 * internal or external account id, or a UMA address.
 */
import type { TransactionRecord } from "../ports/money.js"

export const senderOf = (r: TransactionRecord): string | undefined => {
  const source = r.transaction.source
  if (source === undefined) return undefined
  return source.sourceType === "ACCOUNT" ? source.accountId : source.sourceType === "UMA_ADDRESS" ? source.umaAddress : undefined
}

export const receiverOf = (r: TransactionRecord): string => {
  const d = r.transaction.destination
  return d.destinationType === "ACCOUNT" ? d.accountId : d.umaAddress
}
