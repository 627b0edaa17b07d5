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
import { missing } from "../not-found.js"
import { transactionOf } from "./payments.js"
import { createQuote } from "./quotes.js"

/**
 * A pull without `amount`: the external account's balance is not known here (nor to the
 * real service before the pull), so there is no "whole balance" to pull (docs/decisions.md).
 */
export const missingPullAmount = () =>
  badRequest("INVALID_AMOUNT", "amount is required on a transfer-in: a positive integer in the smallest unit of the currency (the external account's balance is not known, so it cannot default to it)")

/**
 * The amount of a transfer-out that leaves `amount` out: the whole balance of the source
 * internal account (a sweep; docs/decisions.md). An empty account has nothing to send.
 */
export const sweepAmount = Effect.fnUntraced(function*(platform: Platform, internalAccountId: string) {
  const store = yield* Store
  const balance = (yield* store.ledger.balances(platform.id, [internalAccountId])).get(internalAccountId) ?? 0
  if (balance <= 0) {
    return yield* badRequest("INVALID_AMOUNT", `amount was left out, so the whole balance of ${internalAccountId} is sent, and it holds nothing`, {
      details: { accountId: internalAccountId, balance }
    })
  }
  return balance
})

const sameCurrency = Effect.fnUntraced(function*(platform: Platform, sourceId: string, destinationId: string) {
  const store = yield* Store
  const currencyOf = (id: string) =>
    id.startsWith("InternalAccount:")
      ? Effect.map(store.internalAccounts.get(platform.id, id), (a) => a?.currency)
      : Effect.map(store.externalAccounts.get(platform.id, id), (a) => a?.account.currency)
  const [s, d] = [yield* currencyOf(sourceId), yield* currencyOf(destinationId)]
  if (s === undefined) return yield* missing("account", `source.accountId: account ${sourceId} not found`)
  if (d === undefined) return yield* missing("account", `destination.accountId: account ${destinationId} not found`)
  if (s !== undefined && d !== undefined && s !== d) {
    return yield* badRequest("INVALID_CURRENCY", `A same-currency transfer cannot move ${s} into a ${d} account; use POST /quotes`)
  }
})

/** POST /transfer-in: pull from an external account into an internal account. */
export const transferIn = (platform: Platform, req: TransferInRequest) =>
  Effect.gen(function*() {
    if (req.amount === undefined) return yield* missingPullAmount()
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

/** POST /transfer-out: pay out from an internal account to an external account (all of its balance when `amount` is left out). */
export const transferOut = (platform: Platform, req: TransferOutRequest) =>
  Effect.gen(function*() {
    if (!req.source.accountId.startsWith("InternalAccount:")) {
      return yield* badRequest("INVALID_INPUT", "source.accountId must be an internal account")
    }
    if (!req.destination.accountId.startsWith("ExternalAccount:")) {
      return yield* badRequest("INVALID_INPUT", "destination.accountId must be an external account")
    }
    yield* sameCurrency(platform, req.source.accountId, req.destination.accountId)
    const amount = req.amount ?? (yield* sweepAmount(platform, req.source.accountId))
    const quote = yield* createQuote(platform, {
      source: { sourceType: "ACCOUNT", accountId: req.source.accountId },
      destination: {
        destinationType: "ACCOUNT",
        accountId: req.destination.accountId,
        ...(req.destination.paymentRail === undefined ? {} : { paymentRail: req.destination.paymentRail })
      },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: amount,
      immediatelyExecute: true,
      ...(req.remittanceInformation === undefined ? {} : { remittanceInformation: req.remittanceInformation }),
      ...(req.purposeOfPayment === undefined ? {} : { purposeOfPayment: req.purposeOfPayment })
    }, { payout: true })
    return (yield* transactionOf(platform, quote.transactionId)).transaction
  })
