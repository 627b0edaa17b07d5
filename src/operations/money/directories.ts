/**
 * The stateless operations: GET /vasps, GET /uma-providers and
 * POST /crypto/estimate-withdrawal-fee. Nothing is stored; the answers come from the
 * sandbox directories and fee models (src/rules/money/directories.ts,
 * src/rules/money/withdrawal-fees.ts), the platform's configuration and clock, and the
 * calling platform's internal account.
 */
import { Effect } from "effect"
import type { EstimateCryptoWithdrawalFeeRequest, EstimateCryptoWithdrawalFeeResponse, UmaProvider, Vasp } from "../../domain/directory.js"
import { badRequest, invalidInput } from "../../domain/errors.js"
import { type Platform, sandboxUmaDomainOf } from "../../domain/platform.js"
import { Store } from "../../ports/store.js"
import { filterUmaProviders, umaProvidersFor, VASP_DIRECTORY } from "../../rules/money/directories.js"
import * as Fees from "../../rules/money/withdrawal-fees.js"
import { pageCatalogue } from "../catalogue-paging.js"
import { nowMillis } from "../time.js"
import { currenciesOf } from "./config.js"
import { missing } from "../not-found.js"

interface Paging {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** GET /vasps: the directory by name. */
export const listVasps = (q: Paging) =>
  pageCatalogue<Vasp>(VASP_DIRECTORY, (v) => v.vaspName, q)

/** GET /uma-providers: filtered, ordered by name (then domain), descending unless `sortOrder=asc` (the reference's default is `desc`). */
export const listUmaProviders = Effect.fnUntraced(function*(platform: Platform, q: Paging & {
  readonly countryCode?: string | undefined
  readonly currencyCode?: string | undefined
  readonly hasBlockedProviders?: "true" | "false" | undefined
  readonly sortOrder?: "asc" | "desc" | undefined
}) {
  const providers = umaProvidersFor({
    sandboxDomain: platform.settings.sandbox ? sandboxUmaDomainOf(platform) : undefined,
    platformName: platform.name,
    umaDomain: platform.umaDomain,
    platformCurrencies: yield* currenciesOf(platform)
  })
  const shown = filterUmaProviders(providers, {
    countryCode: q.countryCode,
    currencyCode: q.currencyCode,
    hasBlockedProviders: q.hasBlockedProviders === undefined ? undefined : q.hasBlockedProviders === "true"
  })
  return yield* pageCatalogue<UmaProvider>(shown, (p) => `${p.name}\u0000${p.domain}`, { ...q, descending: q.sortOrder !== "asc" })
})

/** POST /crypto/estimate-withdrawal-fee. */
export const estimateWithdrawalFee = Effect.fnUntraced(function*(platform: Platform, req: EstimateCryptoWithdrawalFeeRequest) {
  const store = yield* Store
  const account = yield* store.internalAccounts.get(platform.id, req.internalAccountId)
  if (account === undefined) return yield* missing("internalAccount", `Internal account ${req.internalAccountId} not found`)
  if (!Fees.isWithdrawable(account.currency)) {
    return yield* badRequest("INVALID_CURRENCY", `Internal account ${account.id} holds ${account.currency}; withdrawals are from crypto accounts (BTC, USDC, USDT)`)
  }
  if (req.currency !== account.currency) {
    return yield* badRequest("INVALID_CURRENCY", `currency ${req.currency} is not the currency of internal account ${account.id} (${account.currency})`)
  }
  const model = Fees.feeModelOf(req.cryptoNetwork)
  const networks = Fees.networksFor(req.currency)
  if (model === undefined || !model.assets.includes(req.currency)) {
    return yield* invalidInput(`${req.currency} is not withdrawn on ${req.cryptoNetwork}`, [{
      field: "cryptoNetwork",
      constraint: "network",
      message: `${req.currency} is withdrawn on ${networks.join(", ")}`
    }])
  }
  if (!Fees.addressFits(model, req.destinationAddress)) {
    return yield* invalidInput(`destinationAddress is not a ${req.cryptoNetwork} address`, [{
      field: "destinationAddress",
      constraint: "address",
      message: `must be a ${req.cryptoNetwork} address such as ${model.example}`
    }])
  }
  const estimate = Fees.estimateWithdrawalFee(model, req.currency, req.amount, yield* nowMillis)
  if (!estimate.ok) {
    return yield* estimate.reason === "NO_RATE"
      ? badRequest("INVALID_CURRENCY", `No rate converts the ${model.feeAsset} network fee into ${req.currency} right now`)
      : badRequest("INVALID_AMOUNT", `amount ${req.amount} does not cover the withdrawal's fees (${estimate.totalFee ?? 0})`, {
        details: { amount: req.amount, totalFee: estimate.totalFee ?? 0 }
      })
  }
  const answer: EstimateCryptoWithdrawalFeeResponse = {
    networkFee: estimate.networkFee,
    networkFeeAsset: estimate.networkFeeAsset,
    applicationFee: estimate.applicationFee,
    totalFee: estimate.totalFee,
    netAmount: estimate.netAmount
  }
  return answer
})
