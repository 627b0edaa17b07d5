/** The one table from a rejection's code to its HTTP status, and the mapping operations use. */
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import {
  API_ERRORS,
  Error400,
  Error400Code,
  Error401Code,
  Error403Code,
  Error404Code,
  Error409,
  Error409Code,
  Error410Code,
  Error423Code,
  Error429Code,
  Error500Code,
  Error501Code,
  Error503Code,
  encodeApiError
} from "../../src/domain/errors.js"
import { fromResult, rejected, STATUS_OF_CODE, toApiError } from "../../src/operations/rejection.js"
import { fail, ok } from "../../src/rules/result.js"
import { invalidInput, reject } from "../../src/rules/rejection.js"

const LISTS = [
  [400, Error400Code.literals],
  [401, Error401Code.literals],
  [403, Error403Code.literals],
  [404, Error404Code.literals],
  [409, Error409Code.literals],
  [410, Error410Code.literals],
  [423, Error423Code.literals],
  [429, Error429Code.literals],
  [500, Error500Code.literals],
  [501, Error501Code.literals],
  [503, Error503Code.literals]
] as const

describe("code -> status", () => {
  it("every code of every status list has exactly that status (no code is listed under two statuses)", () => {
    const all = LISTS.flatMap(([status, codes]) => codes.map((code) => [code, status] as const))
    expect(new Set(all.map(([code]) => code)).size).toBe(all.length)
    for (const [code, status] of all) expect(STATUS_OF_CODE.get(code)).toBe(status)
    expect(STATUS_OF_CODE.size).toBe(all.length)
  })
  it("every status the table uses has its error class", () => {
    const statuses = new Set<number>(API_ERRORS.map(([, status]) => status))
    for (const status of STATUS_OF_CODE.values()) expect(statuses.has(status)).toBe(true)
  })
})

describe("toApiError", () => {
  it("keeps the code, the reason and the details, under the code's status", () => {
    const e = toApiError(reject("CARD_NOT_MUTABLE", "The card is CLOSED", { status: "CLOSED" }))
    expect(e).toBeInstanceOf(Error409)
    expect(encodeApiError(e)).toEqual({ status: 409, body: { code: "CARD_NOT_MUTABLE", reason: "The card is CLOSED", message: "The card is CLOSED", details: { status: "CLOSED" } } })
  })
  it("a rejection without details has no details key on the wire", () => {
    const e = toApiError(reject("INVALID_BANK_ACCOUNT", "bad account"))
    expect(e).toBeInstanceOf(Error400)
    expect(encodeApiError(e)).toEqual({ status: 400, body: { code: "INVALID_BANK_ACCOUNT", reason: "bad account", message: "bad account" } })
  })
  it("invalidInput carries the field problems under details.errors", () => {
    const problems = [{ field: "f", constraint: "c", message: "m" }]
    expect(encodeApiError(toApiError(invalidInput("bad", problems)))).toEqual({
      status: 400,
      body: { code: "INVALID_INPUT", reason: "bad", message: "bad", details: { errors: problems } }
    })
    expect(invalidInput("bad")).toEqual({ code: "INVALID_INPUT", reason: "bad" })
  })
  it("fromResult and rejected fail with the mapped error, or succeed with the value", () => {
    expect(Effect.runSync(fromResult(ok(1)))).toBe(1)
    const flipped = Effect.runSyncExit(Effect.flip(fromResult(fail(reject("CONFLICT", "no", { a: 1 })))))
    expect(Exit.isSuccess(flipped) && encodeApiError(flipped.value)).toEqual({ status: 409, body: { code: "CONFLICT", reason: "no", message: "no", details: { a: 1 } } })
    const failed = Effect.runSyncExit(Effect.flip(rejected(reject("QUOTE_NOT_FOUND", "gone"))))
    expect(Exit.isSuccess(failed) && encodeApiError(failed.value)).toEqual({ status: 404, body: { code: "QUOTE_NOT_FOUND", reason: "gone", message: "gone" } })
  })
})
