import type { Error400Code, Error401Code } from "../domain/errors.js"

/**
 * Every verifier answers with a `Verdict`: a value, or a precise `reason` plus the
 * API error it becomes. The reason is for logs and tests; `code`/`status`/`message`
 * are what the HTTP layer puts in the error body.
 */

/**
 * The API codes the verifiers produce. `Extract` ties them to the domain's enums: a code
 * the domain drops becomes `never` and the reason tables stop compiling.
 */
export type ApiErrorCode =
  | Extract<Error400Code, "INVALID_INPUT">
  | Extract<
      Error401Code,
      | "UNAUTHORIZED"
      | "WALLET_SIGNATURE_MISSING"
      | "WALLET_SIGNATURE_MALFORMED"
      | "WALLET_SIGNATURE_BODY_MISMATCH"
      | "WALLET_SIGNATURE_INVALID"
    >

export type ApiStatus = 400 | 401

export interface Accepted<A> {
  readonly ok: true
  readonly value: A
}

export interface Rejected<R extends string> {
  readonly ok: false
  readonly reason: R
  readonly code: ApiErrorCode
  readonly status: ApiStatus
  readonly message: string
}

export type Verdict<A, R extends string> = Accepted<A> | Rejected<R>

export interface ReasonInfo {
  readonly code: ApiErrorCode
  readonly status: ApiStatus
  readonly message: string
}

/** One table per verifier maps each reason to its API error, so the mapping reads like SPEC.md. */
export type ReasonTable<R extends string> = { readonly [K in R]: ReasonInfo }

export const accept = <A>(value: A): Accepted<A> => ({ ok: true, value })

export const rejecter =
  <R extends string>(table: ReasonTable<R>) =>
  <K extends R>(reason: K): Rejected<K> => {
    const info = table[reason]
    return { ok: false, reason, code: info.code, status: info.status, message: info.message }
  }

export const invalidInputReason = (message: string): ReasonInfo => ({ code: "INVALID_INPUT", status: 400, message })
export const unauthorizedReason = (message: string): ReasonInfo => ({ code: "UNAUTHORIZED", status: 401, message })
