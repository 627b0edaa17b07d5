/**
 * POST /transfer-in and POST /transfer-out: deprecated (SPEC.md Versioning), still
 * working, shapes unchanged. Each is mapped onto the quote machinery SPEC.md names as
 * the replacement: `POST /quotes` with `immediatelyExecute: true`, `lockedCurrencySide:
 * SENDING`, ACCOUNT source and destination. A transfer-out follows the sandbox's payout
 * table (external account as payout destination); a transfer-in the pull table.
 */
import { Effect } from "effect"
import { badRequest } from "../../domain/errors.js"
import type { Platform } from "../../domain/platform.js"
import type { TransferInRequest, TransferOutRequest } from "../../domain/transaction.js"
import { Store } from "../../ports/store.js"
import { transactionOf } from "./payments.js"
import { createQuote } from "./quotes.js"

const missingAmount = badRequest("INVALID_AMOUNT", "amount is required: a positive integer in the smallest unit of the currency")

const sameCurrency = Effect.fnUntraced(function*(platform: Platform, sourceId: string, destinationId: string) {
  const store = yield* Store
  const currencyOf = (id: string) =>
    id.startsWith("InternalAccount:")
      ? Effect.map(store.internalAccounts.get(platform.id, id), (a) => a?.currency)
      : Effect.map(store.externalAccounts.get(platform.id, id), (a) => a?.account.currency)
  const [s, d] = [yield* currencyOf(sourceId), yield* currencyOf(destinationId)]
  if (s !== undefined && d !== undefined && s !== d) {
    return yield* badRequest("INVALID_CURRENCY", `A same-currency transfer cannot move ${s} into a ${d} account; use POST /quotes`)
  }
})

/** POST /transfer-in: pull from an external account into an internal account. */
export const transferIn = (platform: Platform, req: TransferInRequest) =>
  Effect.gen(function*() {
    if (req.amount === undefined) return yield* missingAmount
    if (!req.source.accountId.startsWith("ExternalAccount:")) {
      return yield* badRequest("INVALID_INPUT", "source.accountId must be an external account")
    }
    if (!req.destination.accountId.startsWith("InternalAccount:")) {
      return yield* badRequest("INVALID_INPUT", "destination.accountId must be an internal account")
    }
    yield* sameCurrency(platform, req.source.accountId, req.destination.accountId)
    const quote = yield* createQuote(platform, {
      source: { sourceType: "ACCOUNT", accountId: req.source.accountId },
      destination: { destinationType: "ACCOUNT", accountId: req.destination.accountId },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: req.amount,
      immediatelyExecute: true
    }, { payout: false })
    return (yield* transactionOf(platform, quote.transactionId)).transaction
  })

/** POST /transfer-out: pay out from an internal account to an external account. */
export const transferOut = (platform: Platform, req: TransferOutRequest) =>
  Effect.gen(function*() {
    if (req.amount === undefined) return yield* missingAmount
    if (!req.source.accountId.startsWith("InternalAccount:")) {
      return yield* badRequest("INVALID_INPUT", "source.accountId must be an internal account")
    }
    if (!req.destination.accountId.startsWith("ExternalAccount:")) {
      return yield* badRequest("INVALID_INPUT", "destination.accountId must be an external account")
    }
    yield* sameCurrency(platform, req.source.accountId, req.destination.accountId)
    const quote = yield* createQuote(platform, {
      source: { sourceType: "ACCOUNT", accountId: req.source.accountId },
      destination: {
        destinationType: "ACCOUNT",
        accountId: req.destination.accountId,
        ...(req.destination.paymentRail === undefined ? {} : { paymentRail: req.destination.paymentRail })
      },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: req.amount,
      immediatelyExecute: true,
      ...(req.remittanceInformation === undefined ? {} : { remittanceInformation: req.remittanceInformation }),
      ...(req.purposeOfPayment === undefined ? {} : { purposeOfPayment: req.purposeOfPayment })
    }, { payout: true })
    return (yield* transactionOf(platform, quote.transactionId)).transaction
  })
