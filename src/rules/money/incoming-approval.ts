/**
 * The approval mechanism of incoming payments (docs/webhooks.md#approving-incoming-payments):
 * which incoming payments the platform decides on, and what a receiver's answer to the
 * `INCOMING_PAYMENT.PENDING` webhook means. Pure: no Effect, no storage.
 *
 * - Approval-mechanism rails: UMA only (the receiving VASP is asked before any money
 *   moves). Bank rails (SWIFT, ACH, wires to funding instructions), on-chain deposits and
 *   transfers between accounts have moved interbank already: their webhooks are
 *   informational at every status.
 * - Answers: 2xx other than 202 approves (and 409, "already processed", which refused
 *   nothing); 403 rejects (optional `reason`); 422 asks for more information
 *   (`requiredFields`); 202 defers to POST /transactions/{id}/approve or /reject within
 *   `APPROVAL_WINDOW_MILLIS`; anything else decides nothing (the delivery is retried).
 */
import { Option, Schema } from "effect"
import type { TransactionSource } from "../../domain/transaction.js"

/** How long a platform that answered 202 has to call approve or reject (Clock time). */
export const APPROVAL_WINDOW_MILLIS = 5_000
/** How long a payment that asked for more information (422) waits for approve or reject. */
export const INFORMATION_WINDOW_MILLIS = 24 * 3_600_000

/** Whether an incoming payment from `source` waits for the platform's decision (UMA), or its webhooks only inform (every other source). */
export const approvalMechanismApplies = (source: TransactionSource | undefined): boolean => source?.sourceType === "UMA_ADDRESS"

/** The answers a receiver of `INCOMING_PAYMENT.PENDING` gives that end the delivery besides a 2xx or 409. */
export const isApprovalAnswerStatus = (status: number): boolean => status === 403 || status === 422

export type ApprovalAnswer =
  | { readonly kind: "APPROVE"; readonly receiverCustomerInfo?: Readonly<Record<string, unknown>> | undefined }
  | { readonly kind: "REJECT"; readonly reason?: string | undefined }
  | { readonly kind: "INFORMATION_REQUIRED"; readonly requiredFields: ReadonlyArray<string> }
  | { readonly kind: "DEFER" }
  /** No decision: a failed attempt, retried on the delivery schedule. */
  | { readonly kind: "NONE" }

/** The parts of the reference's answer bodies the service reads; anything else in them is ignored. */
const AnswerBody = Schema.fromJsonString(Schema.Struct({
  receiverCustomerInfo: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  reason: Schema.optionalKey(Schema.String),
  requiredFields: Schema.optionalKey(Schema.Array(Schema.String))
}))
const decodeBody = Schema.decodeUnknownOption(AnswerBody)

/** What a receiver's answer (status and body) decides. A body that is not the expected JSON counts as an empty one. */
export const approvalAnswerOf = (status: number, body: string): ApprovalAnswer => {
  const parsed = Option.getOrUndefined(decodeBody(body))
  if (status === 202) return { kind: "DEFER" }
  if ((status >= 200 && status < 300) || status === 409) {
    return parsed?.receiverCustomerInfo === undefined ? { kind: "APPROVE" } : { kind: "APPROVE", receiverCustomerInfo: parsed.receiverCustomerInfo }
  }
  if (status === 403) return parsed?.reason === undefined ? { kind: "REJECT" } : { kind: "REJECT", reason: parsed.reason }
  if (status === 422) return { kind: "INFORMATION_REQUIRED", requiredFields: parsed?.requiredFields ?? [] }
  return { kind: "NONE" }
}
