/**
 * What happens when an external account is registered, decided without storage:
 * the starting status, the sandbox beneficiary-name check, US micro-entry
 * validation, Travel-Rule requirements, and the key that says two accounts are the
 * same account (409 DUPLICATE_EXTERNAL_ACCOUNT).
 */
import {
  type BeneficiaryVerificationStatus,
  currencyOfAccountType,
  type ExternalAccountStatus,
  type OwnershipType
} from "../domain/external-account.js"
import type { PlatformSettings } from "../domain/platform.js"
import { invalidInput, reject, type Rejection } from "./rejection.js"
import { fail, ok, type Result } from "./result.js"
import { beneficiaryNameCheck, microEntryValidation, primaryIdentifier } from "./sandbox/identifiers.js"

type Info = { readonly accountType: string } & Readonly<Record<string, unknown>>

export interface CreateInput {
  readonly currency: string
  readonly accountInfo: Info
  readonly ownershipType?: OwnershipType | undefined
}

export interface CreatePlan {
  readonly status: ExternalAccountStatus
  readonly beneficiaryVerificationStatus?: BeneficiaryVerificationStatus
  readonly beneficiaryVerifiedData?: { readonly fullName: string }
  /** Micro-entry validation still to come, and how it ends. */
  readonly bankValidation?: { readonly outcome: "validated" | "failed"; readonly afterDays: number }
  readonly equivalenceKey: string
}

export const isWallet = (accountType: string): boolean => accountType.endsWith("_WALLET")
export const isSelfCustodyWallet = isWallet

const beneficiaryName = (info: Info): string | undefined => {
  const b = info["beneficiary"]
  if (typeof b !== "object" || b === null) return undefined
  const r = b as Record<string, unknown>
  const name = r["beneficiaryType"] === "BUSINESS" ? r["legalName"] : r["fullName"]
  return typeof name === "string" ? name : undefined
}

/** What a rail answers for a partial match: the same person, written differently. */
const fuzzyVariant = (name: string): string => {
  const parts = name.trim().split(/\s+/)
  if (parts.length < 2) return name.toUpperCase()
  const last = parts[parts.length - 1]!
  return [...parts.slice(0, -1), `${last.charAt(0)}.`].join(" ")
}

/**
 * Normalises an identifier for equality: case and spacing never make two accounts
 * different (IBANs are written in groups, EVM addresses in mixed-case checksum form).
 */
const normalise = (accountType: string, id: string): string => {
  const compact = id.replace(/[\s-]/g, "")
  return accountType === "SOLANA_WALLET" || accountType === "TRON_WALLET" || accountType === "BRL_ACCOUNT"
    ? compact
    : compact.toUpperCase()
}

/** Fields that, beside the primary identifier, tell two bank accounts apart. */
const BANK_ROUTING_FIELDS = ["routingNumber", "sortCode", "bankCode", "branchCode", "ifsc", "swiftCode", "provider"]

/**
 * Two accounts are equivalent when they have the same owner, account type, currency,
 * normalised primary identifier and bank routing fields. Names, beneficiary details
 * and `platformAccountId` do not make an account different.
 */
export const equivalenceKey = (ownerKey: string, currency: string, info: Info): string => {
  let key = `${ownerKey}|${info.accountType}|${currency}|${normalise(info.accountType, primaryIdentifier(info))}`
  for (const f of BANK_ROUTING_FIELDS) {
    const v = info[f]
    if (typeof v === "string") key += `|${v.toUpperCase()}`
  }
  return key
}

export const planExternalAccountCreate = (
  input: CreateInput,
  ownerKey: string,
  settings: PlatformSettings
): Result<CreatePlan, Rejection<"INVALID_INPUT" | "INVALID_BANK_ACCOUNT">> => {
  const info = input.accountInfo
  const accountType = info.accountType

  const expectedCurrency = currencyOfAccountType(accountType)
  if (expectedCurrency !== undefined && input.currency !== expectedCurrency) {
    return fail(invalidInput(`currency must be ${expectedCurrency} for ${accountType}`, [{
      field: "currency",
      constraint: "accountTypeCurrency",
      message: `must be ${expectedCurrency} for ${accountType}`
    }]))
  }

  const wallet = isWallet(accountType)
  if (wallet && settings.travelRule) {
    if (input.ownershipType === undefined) {
      return fail(invalidInput("ownershipType is required for self-custody wallets on this platform (Travel Rule)", [{
        field: "ownershipType",
        constraint: "required",
        message: "is required for self-custody wallets on platforms subject to counterparty requirements"
      }]))
    }
    if (input.ownershipType === "THIRD_PARTY" && info["beneficiary"] === undefined) {
      return fail(invalidInput("accountInfo.beneficiary is required for third-party wallets on this platform (Travel Rule)", [{
        field: "accountInfo.beneficiary",
        constraint: "required",
        message: "is required for THIRD_PARTY wallets on platforms subject to counterparty requirements"
      }]))
    }
  }

  const identifier = primaryIdentifier(info)
  let beneficiaryVerificationStatus: BeneficiaryVerificationStatus | undefined
  let beneficiaryVerifiedData: { readonly fullName: string } | undefined
  if (settings.sandbox) {
    const check = beneficiaryNameCheck(identifier)
    if (check.kind === "invalid-account") {
      return fail(reject(
        wallet || accountType.startsWith("LIGHTNING") ? "INVALID_INPUT" : "INVALID_BANK_ACCOUNT",
        `The account ${identifier} is invalid: the receiving institution rejected it`,
        { field: "accountInfo", identifier }))
    }
    const name = beneficiaryName(info)
    if (name !== undefined) {
      beneficiaryVerificationStatus = check.status
      if (check.status === "MATCHED") beneficiaryVerifiedData = { fullName: name }
      if (check.status === "PARTIAL_MATCH") beneficiaryVerifiedData = { fullName: fuzzyVariant(name) }
    }
  }

  let status: ExternalAccountStatus = "ACTIVE"
  let bankValidation: CreatePlan["bankValidation"]
  if (wallet && settings.travelRule && input.ownershipType === "FIRST_PARTY") {
    status = "PENDING_OWNERSHIP_VERIFICATION"
  } else if (accountType === "USD_ACCOUNT" && settings.sandbox) {
    const routing = info["routingNumber"]
    const v = microEntryValidation(typeof routing === "string" ? routing : "")
    if (v.kind === "pending") {
      status = "PENDING"
      bankValidation = { outcome: v.outcome, afterDays: v.afterDays }
    }
  }

  return ok({
    status,
    ...(beneficiaryVerificationStatus !== undefined ? { beneficiaryVerificationStatus } : {}),
    ...(beneficiaryVerifiedData !== undefined ? { beneficiaryVerifiedData } : {}),
    ...(bankValidation !== undefined ? { bankValidation } : {}),
    equivalenceKey: equivalenceKey(ownerKey, input.currency, info)
  })
}

/**
 * Whether money may move to or from an account now. Payments call this; it is where
 * micro-entry validation shows up as SPEC.md's 409 / 400.
 */
export const usability = (
  account: { readonly status: ExternalAccountStatus; readonly bankValidationFailed?: boolean; readonly bankValidationPending?: boolean }
): Result<true, Rejection<"BANK_ACCOUNT_VALIDATION_PENDING" | "INVALID_BANK_ACCOUNT">> => {
  if (account.bankValidationPending === true) {
    return fail(reject("BANK_ACCOUNT_VALIDATION_PENDING", "The US bank account is still being validated by micro-entry; retry later"))
  }
  if (account.bankValidationFailed === true) {
    return fail(reject("INVALID_BANK_ACCOUNT", "The bank account failed validation permanently; register a different account"))
  }
  return ok(true)
}
