/**
 * The one place that decides what the "primary identifier" of an external account
 * is (SPEC.md: account number, IBAN, CLABE, wallet address and so on), and the
 * suffix tables that read it. Payments use `transferOutcome`; account creation uses
 * `beneficiaryNameCheck`.
 */
import type { BeneficiaryVerificationStatus } from "../../domain/external-account.js"

type Info = { readonly accountType: string } & Readonly<Record<string, unknown>>

const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined)

const firstOf = (info: Info, ...fields: ReadonlyArray<string>): string => {
  for (const f of fields) {
    const v = str(info[f])
    if (v !== undefined) return v
  }
  return ""
}

/** Which fields, in order of preference, hold the primary identifier of each account type. */
export const PRIMARY_IDENTIFIER_FIELDS: Readonly<Record<string, ReadonlyArray<string>>> = {
  AED_ACCOUNT: ["iban"],
  DKK_ACCOUNT: ["iban"],
  EUR_ACCOUNT: ["iban"],
  ILS_ACCOUNT: ["iban"],
  TRY_ACCOUNT: ["iban"],
  EGP_ACCOUNT: ["iban", "phoneNumber"],
  PKR_ACCOUNT: ["accountNumber", "iban", "phoneNumber"],
  BDT_ACCOUNT: ["accountNumber", "phoneNumber"],
  CNY_ACCOUNT: ["accountNumber", "phoneNumber"],
  COP_ACCOUNT: ["accountNumber", "phoneNumber"],
  GHS_ACCOUNT: ["accountNumber", "phoneNumber"],
  SLV_ACCOUNT: ["accountNumber", "phoneNumber"],
  BRL_ACCOUNT: ["pixKey"],
  MXN_ACCOUNT: ["clabeNumber"],
  INR_ACCOUNT: ["accountNumber", "vpa"],
  SWIFT_ACCOUNT: ["accountNumber", "iban"],
  BWP_ACCOUNT: ["phoneNumber"],
  HTG_ACCOUNT: ["phoneNumber"],
  KES_ACCOUNT: ["phoneNumber"],
  MWK_ACCOUNT: ["phoneNumber"],
  RWF_ACCOUNT: ["phoneNumber"],
  TZS_ACCOUNT: ["phoneNumber"],
  UGX_ACCOUNT: ["phoneNumber"],
  XAF_ACCOUNT: ["phoneNumber"],
  XOF_ACCOUNT: ["phoneNumber"],
  ZMW_ACCOUNT: ["phoneNumber"],
  LIGHTNING: ["invoice", "bolt12", "lightningAddress"],
  LIGHTNING_ACCOUNT: ["invoice", "bolt12", "lightningAddress"]
}

/** The primary identifier of an account: the value the sandbox suffix rules read. */
export const primaryIdentifier = (info: Info): string => {
  const fields = PRIMARY_IDENTIFIER_FIELDS[info.accountType]
  if (fields !== undefined) return firstOf(info, ...fields)
  if (info.accountType.endsWith("_WALLET")) return firstOf(info, "address")
  return firstOf(info, "accountNumber")
}

/**
 * The last three characters the suffix tables compare. For identifiers with a
 * domain part (`name102@bank`, a Lightning address) the suffix is taken from the
 * username portion, as SPEC.md says.
 */
export const identifierSuffix = (identifier: string): string => {
  const at = identifier.indexOf("@")
  const local = at >= 0 ? identifier.slice(0, at) : identifier
  return local.slice(-3)
}

// ---------------------------------------------------------------- beneficiary name verification

export type BeneficiaryNameCheck =
  | { readonly kind: "status"; readonly status: BeneficiaryVerificationStatus }
  | { readonly kind: "invalid-account" }

/** SPEC.md "Sandbox outcomes: beneficiary name verification", row by row. */
export const BENEFICIARY_NAME_SUFFIXES: Readonly<Record<string, BeneficiaryNameCheck>> = {
  "102": { kind: "status", status: "NOT_MATCHED" },
  "103": { kind: "status", status: "PARTIAL_MATCH" },
  "104": { kind: "status", status: "PENDING" },
  "105": { kind: "invalid-account" },
  "106": { kind: "status", status: "UNSUPPORTED" },
  "107": { kind: "status", status: "CHECKED_BY_RECEIVING_FI" }
}

export const beneficiaryNameCheck = (identifier: string): BeneficiaryNameCheck =>
  BENEFICIARY_NAME_SUFFIXES[identifierSuffix(identifier)] ?? { kind: "status", status: "MATCHED" }

// ---------------------------------------------------------------- transfer outcomes (for payments)

export type TransferOutcome =
  | { readonly kind: "success" }
  | { readonly kind: "insufficient-funds" }
  | { readonly kind: "account-closed-or-invalid" }
  | { readonly kind: "bank-rejected" }
  | { readonly kind: "pending-then-failed"; readonly afterSeconds: number }

/** SPEC.md "Sandbox outcomes: external account as source of a pull or destination of a payout". */
export const TRANSFER_OUTCOME_SUFFIXES: Readonly<Record<string, TransferOutcome>> = {
  "002": { kind: "insufficient-funds" },
  "003": { kind: "account-closed-or-invalid" },
  "004": { kind: "bank-rejected" },
  "005": { kind: "pending-then-failed", afterSeconds: 30 }
}

export const transferOutcome = (identifier: string): TransferOutcome =>
  TRANSFER_OUTCOME_SUFFIXES[identifierSuffix(identifier)] ?? { kind: "success" }

// ---------------------------------------------------------------- US micro-entry validation

export type MicroEntryValidation =
  | { readonly kind: "none" }
  | { readonly kind: "pending"; readonly outcome: "validated" | "failed"; readonly afterDays: number }

/**
 * Our sandbox choice (SPEC.md is silent on how to reach each outcome): the last three
 * digits of a USD account's `routingNumber` select micro-entry validation. `901`: the
 * account waits in validation and is validated after 3 days; `902`: it waits and then
 * fails validation permanently. Any other routing number needs no validation.
 */
export const MICRO_ENTRY_ROUTING_SUFFIXES: Readonly<Record<string, MicroEntryValidation>> = {
  "901": { kind: "pending", outcome: "validated", afterDays: 3 },
  "902": { kind: "pending", outcome: "failed", afterDays: 3 }
}

export const microEntryValidation = (routingNumber: string): MicroEntryValidation =>
  MICRO_ENTRY_ROUTING_SUFFIXES[routingNumber.slice(-3)] ?? { kind: "none" }
