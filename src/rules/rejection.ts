/**
 * The one way a rule says no: plain data (no Effect, no HTTP), an API error code, a
 * reason a person can read and, optionally, details. Which HTTP status a code answers
 * with is decided once, outside the rules (operations/rejection.ts).
 */
import type { ErrorCode } from "../domain/errors.js"

export type RejectionCode = ErrorCode

export interface Rejection<C extends RejectionCode = RejectionCode> {
  readonly code: C
  readonly reason: string
  readonly details?: Readonly<Record<string, unknown>>
}

/** One field problem of an `INVALID_INPUT` rejection (`details.errors[]`). */
export interface FieldProblem {
  readonly field: string
  readonly constraint: string
  readonly message: string
}

export const reject = <C extends RejectionCode>(code: C, reason: string, details?: Readonly<Record<string, unknown>>): Rejection<C> =>
  details === undefined ? { code, reason } : { code, reason, details }

/** `INVALID_INPUT`, with the field problems (if any) under `details.errors`. */
export const invalidInput = (reason: string, errors?: ReadonlyArray<FieldProblem>): Rejection<"INVALID_INPUT"> =>
  reject("INVALID_INPUT", reason, errors === undefined ? undefined : { errors })
