/**
 * Crypto withdrawal fee estimates (POST /crypto/estimate-withdrawal-fee): which network
 * carries which asset, what a destination address on it looks like, and what moving
 * money on it costs.
 *
 * SANDBOX DATA. The networks are the ones the server already pays wallets on (the wallet
 * account types' networks, plus Lightning); the address formats are the wallet account
 * types' (src/domain/external-account.ts). The network fees are fixed, round estimates in
 * the network's own asset (gas × a fixed price on the EVM chains, the base fee on Solana,
 * energy on Tron, a typical transaction on Bitcoin, routing on Lightning, none on Spark
 * or for USDT on Plasma), and the native assets that are not catalogue currencies (ETH,
 * SOL, POL, TRX, XPL) have a fixed USD price: not market data, reproducible. Converting
 * into the withdrawal currency uses the server's own sandbox rates (`rateAt`).
 */
import { currencyOf } from "../../domain/money.js"
import { rateAt } from "./rates.js"

export interface NetworkFeeModel {
  readonly network: string
  /** The withdrawal currencies the network carries. */
  readonly assets: ReadonlyArray<string>
  /** The asset the network fee is paid in, and its decimals. */
  readonly feeAsset: string
  readonly feeAssetDecimals: number
  /** The network fee in the smallest unit of `feeAsset`, for a withdrawal of `amount` (minor units of the currency). */
  readonly networkFee: (amount: number) => number
  /** Destination formats on this network. */
  readonly addresses: ReadonlyArray<RegExp>
  /** An example destination, for error messages. */
  readonly example: string
}

/** USD per unit of the native assets that are not catalogue currencies (sandbox prices). */
export const NATIVE_ASSET_USD: Readonly<Record<string, number>> = { ETH: 3_000, SOL: 150, POL: 0.5, TRX: 0.12, XPL: 0.5 }

const EVM = [/^0x[0-9a-fA-F]{40}$/]
const evmGas = (gwei: number) => (): number => 65_000 * gwei * 1_000_000_000

const STABLECOINS = ["USDC", "USDT"] as const

export const NETWORK_FEE_MODELS: ReadonlyArray<NetworkFeeModel> = [
  {
    network: "BITCOIN",
    assets: ["BTC"],
    feeAsset: "BTC",
    feeAssetDecimals: 8,
    networkFee: () => 2_000,
    addresses: [/^(bc1|tb1|bcrt1)[02-9ac-hj-np-z]{6,87}$/i, /^[123mn][1-9A-HJ-NP-Za-km-z]{25,34}$/],
    example: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx"
  },
  {
    network: "LIGHTNING",
    assets: ["BTC"],
    feeAsset: "BTC",
    feeAssetDecimals: 8,
    // 1 sat base plus 0.1% routing, rounded up.
    networkFee: (amount) => 1 + Math.ceil(amount / 1_000),
    addresses: [/^ln(bc|tb|bcrt|tbs)[0-9a-z]+$/i, /^lno1[0-9a-z]+$/i, /^[a-z0-9._+-]+@[a-z0-9.-]+\.[a-z]{2,}$/i],
    example: "alice@wallet.example"
  },
  {
    network: "SPARK",
    assets: ["BTC", ...STABLECOINS],
    feeAsset: "BTC",
    feeAssetDecimals: 8,
    networkFee: () => 0,
    addresses: [/^(sp|spark|sprt|sparkrt)1[02-9ac-hj-np-z]{20,200}$/],
    example: "sparkrt1…"
  },
  { network: "ETHEREUM", assets: STABLECOINS, feeAsset: "ETH", feeAssetDecimals: 18, networkFee: evmGas(10), addresses: EVM, example: "0x52908400098527886E0F7030069857D2E4169EE7" },
  { network: "BASE", assets: ["USDC"], feeAsset: "ETH", feeAssetDecimals: 18, networkFee: evmGas(0.01), addresses: EVM, example: "0x52908400098527886E0F7030069857D2E4169EE7" },
  { network: "ARBITRUM", assets: STABLECOINS, feeAsset: "ETH", feeAssetDecimals: 18, networkFee: evmGas(0.02), addresses: EVM, example: "0x52908400098527886E0F7030069857D2E4169EE7" },
  { network: "POLYGON", assets: STABLECOINS, feeAsset: "POL", feeAssetDecimals: 18, networkFee: evmGas(40), addresses: EVM, example: "0x52908400098527886E0F7030069857D2E4169EE7" },
  { network: "PLASMA", assets: ["USDT"], feeAsset: "XPL", feeAssetDecimals: 18, networkFee: () => 0, addresses: EVM, example: "0x52908400098527886E0F7030069857D2E4169EE7" },
  {
    network: "SOLANA",
    assets: STABLECOINS,
    feeAsset: "SOL",
    feeAssetDecimals: 9,
    networkFee: () => 5_000,
    addresses: [/^[1-9A-HJ-NP-Za-km-z]{32,44}$/],
    example: "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV"
  },
  {
    network: "TRON",
    assets: ["USDT"],
    feeAsset: "TRX",
    feeAssetDecimals: 6,
    networkFee: () => 13_000_000,
    addresses: [/^T[1-9A-HJ-NP-Za-km-z]{33}$/],
    example: "TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL"
  }
]

const BY_NETWORK: ReadonlyMap<string, NetworkFeeModel> = new Map(NETWORK_FEE_MODELS.map((m) => [m.network, m]))

export const feeModelOf = (network: string): NetworkFeeModel | undefined => BY_NETWORK.get(network)

/** The networks a currency can be withdrawn on, in catalogue order. */
export const networksFor = (currency: string): ReadonlyArray<string> =>
  NETWORK_FEE_MODELS.filter((m) => m.assets.includes(currency)).map((m) => m.network)

export const isWithdrawable = (currency: string): boolean => networksFor(currency).length > 0

export const addressFits = (model: NetworkFeeModel, address: string): boolean => model.addresses.some((r) => r.test(address))

export type WithdrawalFeeResult =
  | {
    readonly ok: true
    readonly networkFee: number
    readonly networkFeeAsset: string
    readonly applicationFee: number
    readonly totalFee: number
    readonly netAmount: number
  }
  | { readonly ok: false; readonly reason: "NO_RATE" | "FEE_EXCEEDS_AMOUNT"; readonly totalFee?: number }

/**
 * The estimate for a withdrawal of `amount` (minor units of `currency`) on `model`'s
 * network at an instant of the platform's clock. The network fee is converted into the
 * withdrawal currency (rounded up to its smallest unit) and the application fee added:
 * none, as no platform fee type applies to withdrawals (docs/decisions.md). A withdrawal
 * its fees would swallow is refused.
 */
export const estimateWithdrawalFee = (model: NetworkFeeModel, currency: string, amount: number, nowMillis: number): WithdrawalFeeResult => {
  const networkFee = model.networkFee(amount)
  const target = currencyOf(currency)
  if (target === undefined) return { ok: false, reason: "NO_RATE" }
  let converted: number
  if (networkFee === 0) converted = 0
  else if (model.feeAsset === currency) converted = networkFee
  else {
    // The fee in major units of its asset, then in USD (a catalogue currency by its sandbox rate, else its fixed price), then in the target.
    const feeMajor = networkFee / 10 ** model.feeAssetDecimals
    const assetToUsd = currencyOf(model.feeAsset) !== undefined ? rateAt(model.feeAsset, "USD", nowMillis)?.rate : NATIVE_ASSET_USD[model.feeAsset]
    const usdToTarget = rateAt("USD", currency, nowMillis)?.rate
    if (assetToUsd === undefined || usdToTarget === undefined) return { ok: false, reason: "NO_RATE" }
    converted = Math.ceil(feeMajor * assetToUsd * usdToTarget * 10 ** target.decimals - 1e-9)
  }
  const applicationFee = 0
  const totalFee = converted + applicationFee
  if (totalFee >= amount) return { ok: false, reason: "FEE_EXCEEDS_AMOUNT", totalFee }
  return { ok: true, networkFee, networkFeeAsset: model.feeAsset, applicationFee, totalFee, netAmount: amount - totalFee }
}
