/**
 * The directories behind GET /vasps and GET /uma-providers.
 *
 * SANDBOX DATA. The VASPs are a static, illustrative list of well-known exchanges (the
 * names a wallet's `vaspName` may carry; nothing is checked against it, as the reference
 * server has no live directory). The UMA providers are the ones this server can actually
 * route UMA payments to, built from what it already knows: the sandbox counterparties
 * (SPEC.md "Sandbox UMA addresses", on the platform's sandbox UMA domain) and the calling
 * platform's own UMA domain, both on the allow list; and the reference file's own example
 * provider, which this server cannot reach and so lists as not on the allow list
 * ("blocked"). Regions come from the discovery catalogue's corridors of the currencies.
 */
import { type Currency, currencyOf } from "../../domain/money.js"
import { DISCOVERY_CATALOGUE } from "./discoveries.js"
import { SANDBOX_UMA_COUNTERPARTIES } from "./sandbox-payments.js"

export interface VaspEntry {
  readonly vaspName: string
  readonly url?: string
}

/** Sandbox data: well-known exchanges and custodial platforms, by name. */
export const VASP_DIRECTORY: ReadonlyArray<VaspEntry> = [
  { vaspName: "Binance", url: "https://www.binance.com" },
  { vaspName: "Bitfinex", url: "https://www.bitfinex.com" },
  { vaspName: "Bitso", url: "https://bitso.com" },
  { vaspName: "Bitstamp", url: "https://www.bitstamp.net" },
  { vaspName: "Bybit", url: "https://www.bybit.com" },
  { vaspName: "Coinbase", url: "https://www.coinbase.com" },
  { vaspName: "Crypto.com", url: "https://crypto.com" },
  { vaspName: "Gemini", url: "https://www.gemini.com" },
  { vaspName: "Kraken", url: "https://www.kraken.com" },
  { vaspName: "KuCoin", url: "https://www.kucoin.com" },
  { vaspName: "Luno", url: "https://www.luno.com" },
  { vaspName: "Mercado Bitcoin", url: "https://www.mercadobitcoin.com.br" },
  { vaspName: "OKX", url: "https://www.okx.com" },
  { vaspName: "Upbit", url: "https://upbit.com" }
]

export interface UmaProviderEntry {
  readonly name: string
  readonly domain: string
  readonly supportedRegions: ReadonlyArray<string>
  readonly supportedCurrencies: ReadonlyArray<Currency>
  readonly logoUrl?: string
  readonly lei?: string
  readonly allowListStatus: boolean
}

/** The countries the discovery catalogue pays each of `currencies` in (sorted, distinct). */
export const regionsOf = (currencies: ReadonlyArray<string>): ReadonlyArray<string> =>
  [...new Set(DISCOVERY_CATALOGUE.filter((c) => currencies.includes(c.currency)).map((c) => c.country))].sort()

const currenciesIn = (codes: ReadonlyArray<string>): ReadonlyArray<Currency> =>
  [...new Set(codes)].flatMap((code) => {
    const c = currencyOf(code)
    return c === undefined ? [] : [c]
  })

/** The reference file's example UmaProvider: not reachable from this server, so not on the allow list. */
export const REFERENCE_EXAMPLE_PROVIDER: UmaProviderEntry = {
  name: "Lightspark Group",
  domain: "uma.me",
  supportedRegions: ["US"],
  supportedCurrencies: currenciesIn(["USD"]),
  logoUrl: "https://uma.me/logo.png",
  lei: "5493001KJTIIGC8Y1R12",
  allowListStatus: false
}

/**
 * The providers a platform sees: the sandbox counterparties (sandbox platforms, on their
 * sandbox UMA domain), the platform itself when it has a UMA domain (its customers'
 * addresses, in its currencies), and the reference's example.
 */
export const umaProvidersFor = (input: {
  readonly sandboxDomain?: string | undefined
  readonly platformName: string
  readonly umaDomain?: string | undefined
  readonly platformCurrencies: ReadonlyArray<string>
}): ReadonlyArray<UmaProviderEntry> => {
  const out: Array<UmaProviderEntry> = []
  if (input.sandboxDomain !== undefined) {
    const codes = Object.values(SANDBOX_UMA_COUNTERPARTIES).map((c) => c.currency)
    out.push({
      name: "Sandbox counterparties",
      domain: input.sandboxDomain,
      supportedRegions: regionsOf(codes),
      supportedCurrencies: currenciesIn(codes),
      allowListStatus: true
    })
  }
  if (input.umaDomain !== undefined && input.umaDomain !== input.sandboxDomain) {
    out.push({
      name: input.platformName,
      domain: input.umaDomain,
      supportedRegions: regionsOf(input.platformCurrencies),
      supportedCurrencies: currenciesIn(input.platformCurrencies),
      allowListStatus: true
    })
  }
  if (input.umaDomain !== REFERENCE_EXAMPLE_PROVIDER.domain && input.sandboxDomain !== REFERENCE_EXAMPLE_PROVIDER.domain) {
    out.push(REFERENCE_EXAMPLE_PROVIDER)
  }
  return out
}

/** The reference's filters: a region, a currency, and whether providers off the allow list are included (default: yes). */
export const filterUmaProviders = (
  providers: ReadonlyArray<UmaProviderEntry>,
  f: { readonly countryCode?: string | undefined; readonly currencyCode?: string | undefined; readonly hasBlockedProviders?: boolean | undefined }
): ReadonlyArray<UmaProviderEntry> =>
  providers.filter((p) =>
    (f.countryCode === undefined || p.supportedRegions.includes(f.countryCode)) &&
    (f.currencyCode === undefined || p.supportedCurrencies.some((c) => c.code === f.currencyCode)) &&
    (f.hasBlockedProviders !== false || p.allowListStatus)
  )
