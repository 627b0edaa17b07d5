/**
 * The one request pipeline: the steps every API request goes through, as functions that
 * both ways of running it call (the HttpApi app: SafetyNet in server.ts, PlatformAuth and
 * RequestGuard in middleware-live.ts; and the direct lane, direct.ts, which runs the same
 * steps in the same order for the hot endpoints without the router's per-request
 * machinery). An HTTP-wide concern is added here once.
 *
 *  1. route: the best route among the built endpoints and every reference endpoint
 *     (`makeApiRouter`, reference-endpoints.ts); a NUL (%00) in the URL is a 400;
 *  2. authenticate: HTTP Basic, remembered in `VerifiedCredentials` once verified;
 *  3. payload gates: the declared media type and the size limit (`MAX_JSON_BODY_BYTES`);
 *  4. the JSON body: no NUL character, within the general bounds (`readJsonBody`);
 *  5. decode path parameters, headers, query and body with the endpoint's schemas, in that
 *     order; a failure is a 400 naming the part (`PART_NAMES`) and its fields;
 *  6. the endpoint's declared concerns around its handler (`applyConcerns`, concerns.ts);
 *  7. encode the success with the endpoint's schema, an error in the API's error shape,
 *     a defect as 503 (contention) or 500 (`faultOf`);
 *  8. retry advice on every answer (`retryHeaders`).
 */
import { Cause, Effect } from "effect"
import { isSqlError } from "effect/sql/SqlError"
import { type Error400, type Error500, type Error503, internalError, invalidInput, unavailable } from "../domain/errors.js"
import { jsonBoundsError, jsonBoundsViolation } from "../domain/validation.js"
import { NOT_RETRYABLE_HEADERS, RETRY_LATER_HEADERS, retryAdvice, SHOULD_RETRY_HEADER } from "./middleware.js"

// ---------------------------------------------------------------- 4. the JSON body

/**
 * Whether JSON text holds a U+0000 character (escaped as \u0000, or raw). Neither a
 * name nor an identifier has one, and PostgreSQL text cannot store one: such input is
 * refused at the edge with a 400, on every store.
 */
export const hasNulCharacter = (text: string): boolean => text.includes("u0000") && /(?<!\\)(?:\\\\)*\\u0000/.test(text)

/** The 400 for a U+0000 character in `where`. */
export const nulRefused = (where: string): Error400 =>
  invalidInput(`The ${where} contains a NUL (U+0000) character, which no field accepts`, [{
    field: where === "request body" ? "(body)" : `(${where})`,
    constraint: "noNul",
    message: "must not contain U+0000"
  }])

export const malformedJson = (): Error400 =>
  invalidInput("Request body is not valid JSON", [{ field: "(body)", constraint: "json", message: "must be valid JSON" }])

/** A JSON body read: its value (undefined for an empty body), refused (NUL, bounds), or not JSON at all. */
export type JsonBody =
  | { readonly _tag: "Json"; readonly value: unknown }
  | { readonly _tag: "Refused"; readonly error: Error400 }
  | { readonly _tag: "Malformed" }

const MALFORMED: JsonBody = { _tag: "Malformed" }

/**
 * Step 4: a JSON body's text checked for a NUL character, parsed, and held to the bounds
 * every JSON body keeps (longest text, most items, deepest nesting). Text that is no JSON
 * is `Malformed`: the endpoint's decoder refuses it in step 5, after the other parts.
 */
export const readJsonBody = (text: string): JsonBody => {
  if (hasNulCharacter(text)) return { _tag: "Refused", error: nulRefused("request body") }
  let value: unknown
  if (text !== "") {
    try {
      value = JSON.parse(text)
    } catch {
      return MALFORMED
    }
  }
  const violation = jsonBoundsViolation(value)
  return violation === undefined ? { _tag: "Json", value } : { _tag: "Refused", error: jsonBoundsError(violation) }
}

// ---------------------------------------------------------------- 5. decoding

/** How a 400 names the part of the request that failed to decode. */
export const PART_NAMES = { Params: "path parameters", Headers: "headers", Query: "query parameters", Payload: "request body" } as const

// ---------------------------------------------------------------- 7. faults

/** What a request that hit an unexpected defect is answered with. */
export const internalFault = (): Error500 => internalError("An internal error occurred; the request was not applied")

/** A serialization failure or deadlock the store could not rerun its way past: nothing was applied. */
export const isContentionDefect = (defect: unknown): boolean =>
  isSqlError(defect) && (defect.reason._tag === "SerializationError" || defect.reason._tag === "DeadlockError")

/** What a request that lost to concurrent ones too often is answered with (503, retry). */
export const contentionFault = (): Error503 =>
  unavailable("The request lost to concurrent requests too many times and was not applied; retry it")

/** Whether a failure is contention the store could not rerun its way past. */
export const isContention = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((r) => Cause.isDieReason(r) && isContentionDefect(r.defect))

/**
 * Step 7 for a failure that is no API error: contention is a 503 (nothing was applied,
 * retry); anything else is logged and answered 500.
 */
export const faultOf = (
  cause: Cause.Cause<unknown>,
  message = "Unexpected defect while handling a request"
): Effect.Effect<Error500 | Error503> =>
  isContention(cause) ? Effect.succeed(contentionFault()) : Effect.logError(message, cause).pipe(Effect.as(internalFault()))

// ---------------------------------------------------------------- 8. retry advice

const RETRY_AFTER_ADVICE: Readonly<Record<string, string>> = Object.freeze({ [SHOULD_RETRY_HEADER]: "true" })

/**
 * Step 8: the headers an answer gets for its status (`retryAdvice`): a 503 is retried
 * after a second, a 429 with `retry-after` after its wait, every other 4xx and 501 not at all.
 */
export const retryHeaders = (status: number, retryAfter: string | undefined): Readonly<Record<string, string>> | undefined => {
  if (status === 503) return RETRY_LATER_HEADERS
  const advice = retryAdvice(status, retryAfter !== undefined)
  return advice === undefined ? undefined : advice === "true" ? RETRY_AFTER_ADVICE : NOT_RETRYABLE_HEADERS
}
