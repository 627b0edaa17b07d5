/**
 * Where a rule's rejection becomes an HTTP error: the one table from error code to
 * status (derived from the per-status code lists of domain/errors.ts), and the mapping
 * operations use. Rules never name a status.
 */
import { Effect } from "effect"
import {
  Error400,
  Error400Code,
  Error401,
  Error401Code,
  Error403,
  Error403Code,
  Error404,
  Error404Code,
  Error409,
  Error409Code,
  Error410,
  Error410Code,
  Error423,
  Error423Code,
  Error429,
  Error429Code,
  Error500,
  Error500Code,
  Error501,
  Error501Code,
  Error503,
  Error503Code,
  type ErrorCode
} from "../domain/errors.js"
import type { Result } from "../rules/result.js"
import type { Rejection } from "../rules/rejection.js"

/** The API error a rejection with code `C` becomes. */
export type ErrorOf<C extends ErrorCode> = C extends Error400Code ? Error400
  : C extends Error401Code ? Error401
  : C extends Error403Code ? Error403
  : C extends Error404Code ? Error404
  : C extends Error409Code ? Error409
  : C extends Error410Code ? Error410
  : C extends Error423Code ? Error423
  : C extends Error429Code ? Error429
  : C extends Error500Code ? Error500
  : C extends Error501Code ? Error501
  : C extends Error503Code ? Error503
  : never

type Fields = { readonly code: string; readonly reason: string; readonly details?: Readonly<Record<string, unknown>> }
type Make = (fields: Fields) => ErrorOf<ErrorCode>

const byStatus: ReadonlyArray<readonly [number, ReadonlyArray<string>, Make]> = [
  [400, Error400Code.literals, (f) => new Error400(f as ConstructorParameters<typeof Error400>[0])],
  [401, Error401Code.literals, (f) => new Error401(f as ConstructorParameters<typeof Error401>[0])],
  [403, Error403Code.literals, (f) => new Error403(f as ConstructorParameters<typeof Error403>[0])],
  [404, Error404Code.literals, (f) => new Error404(f as ConstructorParameters<typeof Error404>[0])],
  [409, Error409Code.literals, (f) => new Error409(f as ConstructorParameters<typeof Error409>[0])],
  [410, Error410Code.literals, (f) => new Error410(f as ConstructorParameters<typeof Error410>[0])],
  [423, Error423Code.literals, (f) => new Error423(f as ConstructorParameters<typeof Error423>[0])],
  [429, Error429Code.literals, (f) => new Error429(f as ConstructorParameters<typeof Error429>[0])],
  [500, Error500Code.literals, (f) => new Error500(f as ConstructorParameters<typeof Error500>[0])],
  [501, Error501Code.literals, (f) => new Error501(f as ConstructorParameters<typeof Error501>[0])],
  [503, Error503Code.literals, (f) => new Error503(f as ConstructorParameters<typeof Error503>[0])]
]

const makers = new Map<string, Make>()
/** Error code -> HTTP status: the one place a code's status is decided. */
export const STATUS_OF_CODE: ReadonlyMap<ErrorCode, number> = (() => {
  const table = new Map<ErrorCode, number>()
  for (const [status, codes, make] of byStatus) {
    for (const code of codes) {
      table.set(code as ErrorCode, status)
      makers.set(code, make)
    }
  }
  return table
})()

/** The API error a rejection becomes: its code's status, the same code, reason and details. */
export const toApiError = <C extends ErrorCode>(rejection: Rejection<C>): ErrorOf<C> => {
  const make = makers.get(rejection.code)
  if (make === undefined) throw new Error(`No HTTP status for error code ${rejection.code}`)
  const fields: Fields = rejection.details === undefined
    ? { code: rejection.code, reason: rejection.reason }
    : { code: rejection.code, reason: rejection.reason, details: rejection.details }
  return make(fields) as ErrorOf<C>
}

/** Fails with the API error a rejection becomes. */
export const rejected = <C extends ErrorCode>(rejection: Rejection<C>): Effect.Effect<never, ErrorOf<C>> =>
  Effect.fail(toApiError(rejection))

/** A rule's result as an effect: its value, or the API error its rejection becomes. */
export const fromResult = <A, C extends ErrorCode>(r: Result<A, Rejection<C>>): Effect.Effect<A, ErrorOf<C>> =>
  r.ok ? Effect.succeed(r.value) : Effect.fail(toApiError(r.error))
