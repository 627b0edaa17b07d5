/**
 * SPEC.md's sandbox payment tables as data. Each row is a list of steps, each step a
 * payment-machine move (`payment.ts`) due some time after execution. A caller schedules
 * the steps on the platform's clock (`scheduleSteps`) and applies each with
 * `transition` when due; steps due at the same instant are applied in order.
 *
 * The rows are keyed on the last 3 digits of the external account's primary identifier
 * (`primaryIdentifier` / `identifierSuffix` in `../sandbox/identifiers.ts`: for
 * identifiers with a domain part, the username portion).
 */
import { identifierSuffix } from "../sandbox/identifiers.js"
import type { OutgoingFailureReason, PaymentMove } from "./payment.js"

export interface PaymentStep {
  /** Delay after execution, in ms of the platform's clock. */
  readonly afterMillis: number
  readonly move: PaymentMove
}

export interface SandboxPaymentRow {
  /** The suffix that selects the row; "other" for the default row. */
  readonly suffix: string
  readonly description: string
  readonly steps: ReadonlyArray<PaymentStep>
}

/** Quote suffix 003: "completes after about 6 minutes". */
export const LONG_PAYMENT_DELAY_MS = 360_000
/** Quote suffixes 004, 006 and 007: how long a failing payment shows PROCESSING first. */
export const SHORT_FAILURE_DELAY_MS = 5_000
/** Quote suffix 005: how long after completing the receiving bank returns the payment. */
export const RETURN_DELAY_MS = 60_000
/** Pull / payout suffix 005: "stays pending about 30 seconds, then fails". */
export const PENDING_THEN_FAIL_DELAY_MS = 30_000
/** A successful sandbox payment completes at execution. */
export const SUCCESS_DELAY_MS = 0

const complete = (afterMillis: number): PaymentStep => ({ afterMillis, move: { type: "COMPLETE" } })
const failWith = (afterMillis: number, failureReason: OutgoingFailureReason): PaymentStep => ({
  afterMillis,
  move: { type: "FAIL", failureReason }
})
const refunded = (afterMillis: number): PaymentStep => ({ afterMillis, move: { type: "REFUND_COMPLETE" } })
const refundFailed = (afterMillis: number): PaymentStep => ({ afterMillis, move: { type: "REFUND_FAIL" } })

// ---------------------------------------------------------------- quote execution to an external account

/** SPEC.md "Sandbox outcomes: quote execution to an external account", row by row. */
export const QUOTE_EXECUTION_OUTCOMES: Readonly<Record<string, SandboxPaymentRow>> = {
  "002": {
    suffix: "002",
    description: "Quote execution failed: FAILED at once (QUOTE_EXECUTION_FAILED), the debit refunded at once.",
    steps: [failWith(0, "QUOTE_EXECUTION_FAILED"), refunded(0)]
  },
  "003": {
    suffix: "003",
    description: "Long payment: PROCESSING for about 6 minutes, then COMPLETED.",
    steps: [complete(LONG_PAYMENT_DELAY_MS)]
  },
  "004": {
    suffix: "004",
    description: "Counterparty delivery failed: FAILED after 5 s (QUOTE_EXECUTION_FAILED), refunded.",
    steps: [failWith(SHORT_FAILURE_DELAY_MS, "QUOTE_EXECUTION_FAILED"), refunded(SHORT_FAILURE_DELAY_MS)]
  },
  "005": {
    suffix: "005",
    description: "Receiving bank returned the payment: COMPLETED at once, FAILED (PAYOUT_RETURNED) 60 s later, money back to the source.",
    steps: [complete(SUCCESS_DELAY_MS), { afterMillis: RETURN_DELAY_MS, move: { type: "RETURN" } }]
  },
  "006": {
    suffix: "006",
    description: "User cancellation: FAILED after 5 s (QUOTE_EXECUTION_FAILED), refunded at once with reason USER_CANCELLATION.",
    steps: [{ afterMillis: SHORT_FAILURE_DELAY_MS, move: { type: "CANCEL" } }]
  },
  "007": {
    suffix: "007",
    description: "Payout and refund failed: FAILED after 5 s (QUOTE_EXECUTION_FAILED), refund FAILED, money parked in suspense.",
    steps: [failWith(SHORT_FAILURE_DELAY_MS, "QUOTE_EXECUTION_FAILED"), refundFailed(SHORT_FAILURE_DELAY_MS)]
  }
}

export const QUOTE_EXECUTION_SUCCESS: SandboxPaymentRow = {
  suffix: "other",
  description: "Successful payment: COMPLETED at execution.",
  steps: [complete(SUCCESS_DELAY_MS)]
}

/**
 * The row for a destination external account: pass its primary identifier (or just
 * the 3-character suffix).
 */
export const quoteExecutionOutcome = (primaryIdentifierOrSuffix: string): SandboxPaymentRow =>
  QUOTE_EXECUTION_OUTCOMES[identifierSuffix(primaryIdentifierOrSuffix)] ?? QUOTE_EXECUTION_SUCCESS

// ---------------------------------------------------------------- pull source / payout destination

export type PullOrPayout = "PULL" | "PAYOUT"

export interface PullOrPayoutRow {
  readonly suffix: string
  readonly description: string
  /** Undefined for the success row. */
  readonly failureReason: OutgoingFailureReason | undefined
  /** When the transfer completes or fails, after it starts. */
  readonly afterMillis: number
}

/**
 * SPEC.md "Sandbox outcomes: external account as source of a pull or destination of a
 * payout" (transfer-in / transfer-out, and quotes whose source is a pulled account).
 */
export const PULL_OR_PAYOUT_OUTCOMES: Readonly<Record<string, PullOrPayoutRow>> = {
  "002": { suffix: "002", description: "Insufficient funds: fails immediately.", failureReason: "QUOTE_EXECUTION_FAILED", afterMillis: 0 },
  "003": { suffix: "003", description: "Account closed or invalid: fails immediately.", failureReason: "ACCOUNT_INVALID", afterMillis: 0 },
  "004": { suffix: "004", description: "Bank rejects the transfer: fails immediately.", failureReason: "ACCOUNT_CANNOT_RECEIVE", afterMillis: 0 },
  "005": {
    suffix: "005",
    description: "Stays pending about 30 seconds, then fails.",
    failureReason: "QUOTE_EXECUTION_FAILED",
    afterMillis: PENDING_THEN_FAIL_DELAY_MS
  }
}

export const PULL_OR_PAYOUT_SUCCESS: PullOrPayoutRow = {
  suffix: "other",
  description: "Success.",
  failureReason: undefined,
  afterMillis: SUCCESS_DELAY_MS
}

/** The row for an external account used as a pull source or a payout destination. */
export const pullOrPayoutOutcome = (primaryIdentifierOrSuffix: string): PullOrPayoutRow =>
  PULL_OR_PAYOUT_OUTCOMES[identifierSuffix(primaryIdentifierOrSuffix)] ?? PULL_OR_PAYOUT_SUCCESS

/**
 * The payment-machine steps of a pull or payout row. A payout debited the source
 * internal account first, so a failure is followed at once by the refund of the debit;
 * a pull debited nothing of ours, so it only fails.
 */
export const pullOrPayoutSteps = (row: PullOrPayoutRow, kind: PullOrPayout): ReadonlyArray<PaymentStep> =>
  row.failureReason === undefined
    ? [complete(row.afterMillis)]
    : kind === "PAYOUT"
    ? [failWith(row.afterMillis, row.failureReason), refunded(row.afterMillis)]
    : [failWith(row.afterMillis, row.failureReason)]

/** Steps as absolute moves on the platform's clock, in order: what a scheduler stores. */
export const scheduleSteps = (
  steps: ReadonlyArray<PaymentStep>,
  executedAtMillis: number
): ReadonlyArray<{ readonly at: number; readonly move: PaymentMove }> =>
  steps.map((s) => ({ at: executedAtMillis + s.afterMillis, move: s.move }))

// ---------------------------------------------------------------- UMA addresses

export const SANDBOX_UMA_DOMAIN_DEFAULT = "sandbox.grid.uma.money"

export const UMA_ADDRESS_MAX_LENGTH = 255

export interface UmaAddress {
  /** Lower-cased local part, without the `$`. */
  readonly localPart: string
  /** Lower-cased domain. */
  readonly domain: string
}

const LOCAL_PART = /^[a-z0-9._-]+$/
const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * Parses `$name@domain`: the local part is letters, digits, `.`, `_`, `-` (case-insensitive),
 * the domain a hostname (dot-separated labels of letters, digits and inner hyphens, at most
 * 63 characters each), the whole at most 255 characters. Both parts come back lower-cased.
 */
export const parseUmaAddress = (s: string): UmaAddress | undefined => {
  if (s.length > UMA_ADDRESS_MAX_LENGTH || !s.startsWith("$")) return undefined
  const at = s.indexOf("@")
  if (at < 0 || at !== s.lastIndexOf("@")) return undefined
  const localPart = s.slice(1, at).toLowerCase()
  const domain = s.slice(at + 1).toLowerCase()
  if (!LOCAL_PART.test(localPart)) return undefined
  const labels = domain.split(".")
  if (domain.length === 0 || !labels.every((l) => HOST_LABEL.test(l))) return undefined
  return { localPart, domain }
}

export interface SandboxUmaCounterparty {
  readonly localPart: string
  readonly description: string
  /** The currency the counterparty receives in. */
  readonly currency: string
  readonly steps: ReadonlyArray<PaymentStep>
}

/** `$pending.long.usd`: how long the payment stays pending before it completes. */
export const UMA_LONG_PENDING_MS = 86_400_000

/** SPEC.md "Sandbox UMA addresses". */
export const SANDBOX_UMA_COUNTERPARTIES: Readonly<Record<string, SandboxUmaCounterparty>> = {
  "success.usd": { localPart: "success.usd", description: "Payment succeeds in USD.", currency: "USD", steps: [complete(SUCCESS_DELAY_MS)] },
  "success.eur": { localPart: "success.eur", description: "Payment succeeds in EUR.", currency: "EUR", steps: [complete(SUCCESS_DELAY_MS)] },
  "success.mxn": { localPart: "success.mxn", description: "Payment succeeds in MXN.", currency: "MXN", steps: [complete(SUCCESS_DELAY_MS)] },
  "pending.long.usd": {
    localPart: "pending.long.usd",
    description: "Long-pending payment: PROCESSING for 24 hours of the platform's clock, then COMPLETED.",
    currency: "USD",
    steps: [complete(UMA_LONG_PENDING_MS)]
  },
  "fail.compliance.usd": {
    localPart: "fail.compliance.usd",
    description: "Compliance failure: FAILED after 5 s (COMPLIANCE_REJECTED), refunded.",
    currency: "USD",
    steps: [failWith(SHORT_FAILURE_DELAY_MS, "COMPLIANCE_REJECTED"), refunded(SHORT_FAILURE_DELAY_MS)]
  }
}

/**
 * The sandbox counterparty behind a UMA address on the sandbox UMA domain, or undefined
 * (another domain, another local part, or not a UMA address).
 */
export const sandboxUmaCounterparty = (address: string, domain: string = SANDBOX_UMA_DOMAIN_DEFAULT): SandboxUmaCounterparty | undefined => {
  const parsed = parseUmaAddress(address)
  if (parsed === undefined || parsed.domain !== domain.toLowerCase()) return undefined
  return Object.prototype.hasOwnProperty.call(SANDBOX_UMA_COUNTERPARTIES, parsed.localPart)
    ? SANDBOX_UMA_COUNTERPARTIES[parsed.localPart]
    : undefined
}
