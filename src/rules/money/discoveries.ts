/**
 * The discovery catalogue behind GET /discoveries: for each fiat currency of the service's
 * catalogue (`CURRENCIES`), the country or countries it is paid in, and a few banks and
 * payment providers there with the rails a payout to them takes.
 *
 * SANDBOX DATA. The institutions are a static, illustrative list of well-known names,
 * not a live directory: the reference server has no bank directory behind it, and
 * nothing is checked against this list (an external account may name any `bankName`).
 * The rails are not invented here: they are the account type's own `paymentRails`
 * (`paymentRailsOf` in domain/external-account.ts, the rails a quote may pin), a bank
 * taking the non-mobile rails and a mobile-money provider MOBILE_MONEY.
 *
 * Stablecoins and BTC (USDC, USDT, BTC) have no country, bank or rail (they are paid to
 * wallet addresses), so the catalogue has no entry for them.
 */
import { paymentRailsOf, type PaymentRail } from "../../domain/external-account.js"
import { CURRENCIES } from "../../domain/money.js"

export type InstitutionKind = "BANK" | "MOBILE_MONEY_PROVIDER"

export interface Institution {
  /** Canonical name (what an external account's `bankName` would carry). */
  readonly bankName: string
  readonly displayName: string
  readonly kind: InstitutionKind
}

export interface Corridor {
  /** ISO 3166-1 alpha-2. */
  readonly country: string
  /** ISO 4217, a code of `CURRENCIES`. */
  readonly currency: string
  readonly institutions: ReadonlyArray<Institution>
}

const bank = (bankName: string, displayName: string = bankName): Institution => ({ bankName, displayName, kind: "BANK" })
const provider = (bankName: string, displayName: string = bankName): Institution => ({
  bankName,
  displayName,
  kind: "MOBILE_MONEY_PROVIDER"
})

/** Sandbox data: institutions per country and currency, in `CURRENCIES` order. */
export const DISCOVERY_CATALOGUE: ReadonlyArray<Corridor> = [
  { country: "US", currency: "USD", institutions: [bank("JPMorgan Chase", "JPMorgan Chase Bank"), bank("Bank of America"), bank("Wells Fargo", "Wells Fargo Bank"), bank("Citibank")] },
  { country: "DE", currency: "EUR", institutions: [bank("Deutsche Bank"), bank("Commerzbank")] },
  { country: "FR", currency: "EUR", institutions: [bank("BNP Paribas"), bank("Societe Generale", "Société Générale")] },
  { country: "ES", currency: "EUR", institutions: [bank("Banco Santander"), bank("BBVA", "Banco Bilbao Vizcaya Argentaria")] },
  { country: "NL", currency: "EUR", institutions: [bank("ING Bank"), bank("ABN AMRO")] },
  { country: "MX", currency: "MXN", institutions: [bank("BBVA Mexico", "BBVA México"), bank("Banorte"), bank("Santander Mexico", "Santander México"), bank("Banamex")] },
  { country: "GB", currency: "GBP", institutions: [bank("Barclays"), bank("HSBC UK"), bank("Lloyds Bank"), bank("NatWest")] },
  { country: "CA", currency: "CAD", institutions: [bank("RBC", "Royal Bank of Canada"), bank("TD Canada Trust"), bank("Scotiabank")] },
  { country: "BR", currency: "BRL", institutions: [bank("Itau Unibanco", "Itaú Unibanco"), bank("Banco do Brasil"), bank("Bradesco"), bank("Nubank")] },
  { country: "IN", currency: "INR", institutions: [bank("State Bank of India"), bank("HDFC Bank"), bank("ICICI Bank")] },
  { country: "NG", currency: "NGN", institutions: [bank("Access Bank"), bank("GTBank", "Guaranty Trust Bank"), bank("Zenith Bank")] },
  { country: "KE", currency: "KES", institutions: [provider("M-Pesa", "M-Pesa (Safaricom)"), provider("Airtel Money")] },
  // The reference file's own example for this corridor: BDO Unibank and BPI.
  { country: "PH", currency: "PHP", institutions: [bank("BDO Unibank"), bank("BPI", "Bank of the Philippine Islands"), bank("Metrobank")] },
  { country: "CO", currency: "COP", institutions: [bank("Bancolombia"), bank("Banco de Bogota", "Banco de Bogotá"), provider("Nequi")] },
  { country: "DK", currency: "DKK", institutions: [bank("Danske Bank"), bank("Nordea Danmark")] },
  { country: "HK", currency: "HKD", institutions: [bank("HSBC Hong Kong"), bank("Bank of China (Hong Kong)"), bank("Hang Seng Bank")] },
  { country: "SG", currency: "SGD", institutions: [bank("DBS Bank"), bank("OCBC", "Oversea-Chinese Banking Corporation"), bank("UOB", "United Overseas Bank")] },
  { country: "ID", currency: "IDR", institutions: [bank("BCA", "Bank Central Asia"), bank("Bank Mandiri"), bank("BRI", "Bank Rakyat Indonesia")] },
  { country: "MY", currency: "MYR", institutions: [bank("Maybank"), bank("CIMB Bank"), bank("Public Bank")] },
  { country: "TH", currency: "THB", institutions: [bank("Bangkok Bank"), bank("Kasikornbank"), bank("SCB", "Siam Commercial Bank")] },
  { country: "VN", currency: "VND", institutions: [bank("Vietcombank"), bank("Techcombank"), bank("BIDV", "Bank for Investment and Development of Vietnam")] },
  { country: "AE", currency: "AED", institutions: [bank("Emirates NBD"), bank("FAB", "First Abu Dhabi Bank"), bank("ADCB", "Abu Dhabi Commercial Bank")] },
  { country: "CN", currency: "CNY", institutions: [bank("ICBC", "Industrial and Commercial Bank of China"), bank("Bank of China"), provider("Alipay"), provider("WeChat Pay")] }
]

/** The currencies of `CURRENCIES` paid to wallets, not banks: no discovery entry. */
export const WALLET_CURRENCIES: ReadonlySet<string> = new Set(["USDC", "USDT", "BTC"])

/**
 * The rails a payout to an institution takes: its currency's account type's rails, a bank
 * the ones other than MOBILE_MONEY, a mobile-money provider MOBILE_MONEY (when the account
 * type has it; else the account type's rails).
 */
export const railsOf = (currency: string, kind: InstitutionKind): ReadonlyArray<PaymentRail> => {
  const rails = paymentRailsOf(`${currency}_ACCOUNT`) ?? []
  const mobile = rails.filter((r) => r === "MOBILE_MONEY")
  const other = rails.filter((r) => r !== "MOBILE_MONEY")
  if (kind === "MOBILE_MONEY_PROVIDER") return mobile.length > 0 ? mobile : rails
  return other.length > 0 ? other : rails
}

export interface DiscoveryEntry {
  readonly bankName: string
  readonly displayName: string
  readonly country: string
  readonly currency: string
  readonly paymentRails: ReadonlyArray<PaymentRail>
}

/** Every entry of the catalogue, in catalogue order, with its rails. */
export const DISCOVERIES: ReadonlyArray<DiscoveryEntry> = DISCOVERY_CATALOGUE.flatMap((c) =>
  c.institutions.map((i) => ({
    bankName: i.bankName,
    displayName: i.displayName,
    country: c.country,
    currency: c.currency,
    paymentRails: railsOf(c.currency, i.kind)
  }))
)

/**
 * The entries of a corridor: both filters optional (none: every entry). An unknown but
 * well-formed country or currency matches nothing.
 */
export const discoveriesFor = (filter: { readonly country?: string | undefined; readonly currency?: string | undefined }): ReadonlyArray<DiscoveryEntry> =>
  DISCOVERIES.filter((d) =>
    (filter.country === undefined || d.country === filter.country) && (filter.currency === undefined || d.currency === filter.currency)
  )

/** Catalogue currencies without a discovery entry, besides the wallet ones (the tests expect none). */
export const currenciesWithoutDiscovery = (): ReadonlyArray<string> =>
  Object.keys(CURRENCIES).filter((code) => !WALLET_CURRENCIES.has(code) && !DISCOVERY_CATALOGUE.some((c) => c.currency === code))
