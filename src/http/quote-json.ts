/**
 * The direct lane's shortcuts past the quote endpoints' schemas (`LaneShortcuts`,
 * src/http/direct.ts): the JSON text of a `Quote` answer (`POST /quotes`, `POST
 * /quotes/{id}/execute`) written without the schema's encoder, and a `QuoteRequest` read
 * from its JSON body without the payload schema. The encoder walks the quote's AST, runs
 * every check and builds the encoded copy on each answer (about 7% of the lane's CPU per
 * payment in process, docs/performance.md); decoding a request is about half that. These
 * give the same text and value for the common shape: a quote from an account to an
 * account, with or without rate details, no payment instructions and no SCA challenge.
 *
 * Each answers only what it has checked field by field as the schema would (each field's
 * type, each literal, each check): anything else, an absent or extra shape, a present
 * optional key holding `undefined`, a number that is not finite, returns `undefined`, and
 * the lane runs the schema as before (so every error stays the schema's). The objects
 * built have the schema's keys in the schema's order and nothing else, as the schema
 * builds them. `test/http/quote-json.test.ts` holds both to the endpoints' own schemas for
 * generated values.
 */
import { PaymentRail } from "../domain/external-account.js"
import { Currency, MAX_AMOUNT } from "../domain/money.js"
import { AccountDestination, AccountQuoteSource, OutgoingRateDetails, Quote, QuoteLockSide, QuoteRequest, QuoteStatus } from "../domain/quote.js"

/** The fields this writer knows, in the schema's order; checked against the schemas when the module loads. */
const QUOTE_KEYS = [
  "id",
  "status",
  "createdAt",
  "expiresAt",
  "source",
  "destination",
  "sendingCurrency",
  "receivingCurrency",
  "totalSendingAmount",
  "totalReceivingAmount",
  "exchangeRate",
  "feesIncluded",
  "platformFeesIncluded",
  "paymentInstructions",
  "transactionId",
  "rateDetails",
  "scaChallenge"
]
const SOURCE_KEYS = ["sourceType", "accountId", "customerId"]
const DESTINATION_KEYS = ["destinationType", "accountId", "paymentRail"]
const CURRENCY_KEYS = ["code", "name", "symbol", "decimals"]
const REQUEST_KEYS = [
  "lookupId",
  "source",
  "destination",
  "lockedCurrencySide",
  "lockedCurrencyAmount",
  "immediatelyExecute",
  "remittanceInformation",
  "purposeOfPayment",
  "description",
  "platformFeeOverride",
  "scaFactor",
  "senderCustomerInfo"
]
const RATE_KEYS = [
  "counterpartyMultiplier",
  "counterpartyFixedFee",
  "gridApiMultiplier",
  "gridApiFixedFee",
  "gridApiVariableFeeRate",
  "gridApiVariableFeeAmount"
]

const sameKeys = (fields: object, keys: ReadonlyArray<string>) => {
  const actual = Object.keys(fields)
  return actual.length === keys.length && actual.every((k, i) => k === keys[i])
}
// A schema that gained, lost or reordered a field would make this writer's text differ
// from the encoder's: refuse to load rather than answer differently.
if (
  !sameKeys(Quote.fields, QUOTE_KEYS) || !sameKeys(AccountQuoteSource.fields, SOURCE_KEYS) ||
  !sameKeys(AccountDestination.fields, DESTINATION_KEYS) || !sameKeys(Currency.fields, CURRENCY_KEYS) ||
  !sameKeys(OutgoingRateDetails.fields, RATE_KEYS) || !sameKeys(QuoteRequest.fields, REQUEST_KEYS)
) {
  throw new Error("quote-json: the Quote schema changed; update src/http/quote-json.ts to match it")
}

const STATUSES: ReadonlySet<unknown> = new Set(QuoteStatus.literals)
const RAILS: ReadonlySet<unknown> = new Set(PaymentRail.literals)
const LOCK_SIDES: ReadonlySet<unknown> = new Set(QuoteLockSide.literals)
/** The quote source's and destination's `Id`: a string of 1 to 255 characters. */
const isId = (v: unknown): v is string => typeof v === "string" && v.length >= 1 && v.length <= 255
const isFinite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v)

type Fields = Record<string, unknown>

const isObject = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v)

/** An optional key: absent (true, nothing to write), or present with a value (false). A present `undefined` is neither. */
const absent = (o: Fields, key: string): boolean | undefined => {
  if (o[key] !== undefined) return false
  return key in o ? undefined : true
}

const source = (v: unknown): Fields | undefined => {
  if (!isObject(v) || v["sourceType"] !== "ACCOUNT" || !isId(v["accountId"])) return undefined
  const noCustomer = absent(v, "customerId")
  if (noCustomer === undefined || (!noCustomer && !isId(v["customerId"]))) return undefined
  return noCustomer
    ? { sourceType: "ACCOUNT", accountId: v["accountId"] }
    : { sourceType: "ACCOUNT", accountId: v["accountId"], customerId: v["customerId"] }
}

const destination = (v: unknown): Fields | undefined => {
  if (!isObject(v) || v["destinationType"] !== "ACCOUNT" || !isId(v["accountId"])) return undefined
  const noRail = absent(v, "paymentRail")
  if (noRail === undefined || (!noRail && !RAILS.has(v["paymentRail"]))) return undefined
  return noRail
    ? { destinationType: "ACCOUNT", accountId: v["accountId"] }
    : { destinationType: "ACCOUNT", accountId: v["accountId"], paymentRail: v["paymentRail"] }
}

const currency = (v: unknown): Fields | undefined => {
  if (!isObject(v)) return undefined
  const { code, name, symbol, decimals } = v
  if (typeof code !== "string" || typeof name !== "string" || typeof symbol !== "string") return undefined
  if (!Number.isSafeInteger(decimals) || (decimals as number) < 0) return undefined
  return { code, name, symbol, decimals }
}

const rateDetails = (v: unknown): Fields | undefined => {
  if (!isObject(v)) return undefined
  const a = v["counterpartyMultiplier"]
  const b = v["counterpartyFixedFee"]
  const c = v["gridApiMultiplier"]
  const d = v["gridApiFixedFee"]
  const e = v["gridApiVariableFeeRate"]
  const f = v["gridApiVariableFeeAmount"]
  if (!isFinite(a) || !isFinite(b) || !isFinite(c) || !isFinite(d) || !isFinite(e) || !isFinite(f)) return undefined
  return {
    counterpartyMultiplier: a,
    counterpartyFixedFee: b,
    gridApiMultiplier: c,
    gridApiFixedFee: d,
    gridApiVariableFeeRate: e,
    gridApiVariableFeeAmount: f
  }
}

/**
 * `JSON.stringify` of the schema's encoding of `value` as a `Quote`, or `undefined` when
 * the value is not of the shape written here (the caller encodes it with the schema).
 */
export const quoteJson = (value: unknown): string | undefined => {
  if (!isObject(value)) return undefined
  const q = value
  // Only the shape written here: no payment instructions, no SCA challenge.
  if (absent(q, "paymentInstructions") !== true || absent(q, "scaChallenge") !== true) return undefined
  const { id, status, createdAt, expiresAt, transactionId } = q
  if (typeof id !== "string" || !STATUSES.has(status) || typeof createdAt !== "string" || typeof expiresAt !== "string") return undefined
  if (typeof transactionId !== "string") return undefined
  const { totalSendingAmount, totalReceivingAmount, exchangeRate, feesIncluded } = q
  if (!isFinite(totalSendingAmount) || !isFinite(totalReceivingAmount) || !isFinite(exchangeRate) || !isFinite(feesIncluded)) return undefined
  const from = source(q["source"])
  const to = destination(q["destination"])
  const sending = currency(q["sendingCurrency"])
  const receiving = currency(q["receivingCurrency"])
  if (from === undefined || to === undefined || sending === undefined || receiving === undefined) return undefined
  const noPlatformFees = absent(q, "platformFeesIncluded")
  if (noPlatformFees === undefined || (!noPlatformFees && !isFinite(q["platformFeesIncluded"]))) return undefined
  const noRate = absent(q, "rateDetails")
  if (noRate === undefined) return undefined
  const rate = noRate ? undefined : rateDetails(q["rateDetails"])
  if (!noRate && rate === undefined) return undefined
  // `undefined` fields are left out by JSON.stringify: the optional keys absent above.
  return JSON.stringify({
    id,
    status,
    createdAt,
    expiresAt,
    source: from,
    destination: to,
    sendingCurrency: sending,
    receivingCurrency: receiving,
    totalSendingAmount,
    totalReceivingAmount,
    exchangeRate,
    feesIncluded,
    platformFeesIncluded: noPlatformFees ? undefined : q["platformFeesIncluded"],
    transactionId,
    rateDetails: rate
  })
}


/** The request keys `readQuoteRequest` decodes; a body with any other key is left to the schema. */
const REQUEST_KEYS_READ: ReadonlySet<string> = new Set(["source", "destination", "lockedCurrencySide", "lockedCurrencyAmount", "immediatelyExecute"])

/**
 * The `QuoteRequest` the schema decodes from a JSON body, for the common shape only
 * (account to account, an amount and a side, `immediatelyExecute` or not, nothing else);
 * `undefined` for any other body, valid or not, which the lane decodes with the schema
 * (so every error is the schema's). Checked field by field as the schema checks it:
 * `Id` of 1 to 255 characters, the literals, `PositiveAmount` (a safe integer above 0,
 * at most `MAX_AMOUNT`). The decoded object has the schema's keys in its order.
 */
export const readQuoteRequest = (json: unknown): Fields | undefined => {
  if (!isObject(json)) return undefined
  for (const key in json) if (!REQUEST_KEYS_READ.has(key)) return undefined
  const { lockedCurrencySide, lockedCurrencyAmount, immediatelyExecute } = json
  if (!LOCK_SIDES.has(lockedCurrencySide)) return undefined
  if (!Number.isSafeInteger(lockedCurrencyAmount) || (lockedCurrencyAmount as number) <= 0 || (lockedCurrencyAmount as number) > MAX_AMOUNT) {
    return undefined
  }
  const from = source(json["source"])
  const to = destination(json["destination"])
  if (from === undefined || to === undefined) return undefined
  if (immediatelyExecute === undefined) {
    if ("immediatelyExecute" in json) return undefined
    return { source: from, destination: to, lockedCurrencySide, lockedCurrencyAmount }
  }
  if (typeof immediatelyExecute !== "boolean") return undefined
  return { source: from, destination: to, lockedCurrencySide, lockedCurrencyAmount, immediatelyExecute }
}
