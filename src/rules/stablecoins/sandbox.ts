/**
 * The stablecoin sandbox tables (sandbox platforms only; docs/sandbox.md), keyed on the
 * last 3 characters of a value like every other sandbox table.
 */
import type { StablecoinProviderAccountStatus } from "../../domain/stablecoin.js"
import { suffixOf } from "../sandbox/suffix.js"
import { type TransferOutcome, transferOutcome } from "../sandbox/identifiers.js"
import type { IssuanceOutcome } from "./issuance.js"
import type { CounterpartyOutcome } from "./operation.js"

/** Linking provider credentials, by the last 3 characters of `apiClientId`. */
export type CredentialCheck = { readonly kind: "linked"; readonly status: StablecoinProviderAccountStatus } | { readonly kind: "rejected" }

export const CREDENTIAL_SUFFIXES: Readonly<Record<string, CredentialCheck>> = {
  "901": { kind: "linked", status: "INVALID" },
  "902": { kind: "linked", status: "REVOKED" },
  "903": { kind: "rejected" }
}

export const credentialCheck = (apiClientId: string, sandbox: boolean): CredentialCheck =>
  (sandbox ? CREDENTIAL_SUFFIXES[suffixOf(apiClientId)] : undefined) ?? { kind: "linked", status: "ACTIVE" }

/** A registered token, by the last 3 characters of `providerTokenIdentifier`. */
export interface TokenOutcome {
  readonly issuance: IssuanceOutcome
  /** The operator declines a Grid-operations enablement request. */
  readonly enablementDeclined: boolean
}

export const TOKEN_SUFFIXES: Readonly<Record<string, TokenOutcome>> = {
  "901": { issuance: "REJECTED", enablementDeclined: false },
  "902": { issuance: "FAILED", enablementDeclined: false },
  "903": { issuance: "PROVISIONED", enablementDeclined: true }
}

export const tokenOutcome = (providerTokenIdentifier: string, sandbox: boolean): TokenOutcome =>
  (sandbox ? TOKEN_SUFFIXES[suffixOf(providerTokenIdentifier)] : undefined) ?? { issuance: "PROVISIONED", enablementDeclined: false }

const FAILURE_REASONS: Readonly<Record<Exclude<TransferOutcome["kind"], "success">, string>> = {
  "insufficient-funds": "INSUFFICIENT_FUNDS",
  "account-closed-or-invalid": "ACCOUNT_INVALID",
  "bank-rejected": "BANK_REJECTED",
  "pending-then-failed": "PROVIDER_TRANSFER_FAILED"
}

/**
 * An external account as an ACH-debit funding source or a payout destination: the money
 * side's table (`002`–`005` of the account's primary identifier), on sandbox platforms.
 */
export const counterpartyOutcome = (primaryIdentifier: string, sandbox: boolean): CounterpartyOutcome => {
  if (!sandbox) return { kind: "success" }
  const o = transferOutcome(primaryIdentifier)
  return o.kind === "success" ? o : { kind: "fails", failureReason: FAILURE_REASONS[o.kind], late: o.kind === "pending-then-failed" }
}
