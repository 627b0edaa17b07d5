/**
 * What the SCA and contact-verification operations share: the customer guard (SCA
 * regions only), one-time codes (sandbox `123456`, else six random digits), and the
 * "write, then fail" shape a counted wrong try needs (the count must commit).
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Effect } from "effect"
import { conflict } from "../../domain/errors.js"
import type { Platform } from "../../domain/platform.js"
import type { CodeChallenge } from "../../domain/sca.js"
import { Ids } from "../../ports/ids.js"
import { requiresSca, SANDBOX_SCA_CODE } from "../../rules/sca.js"
import { activeCustomer } from "../customers.js"

/** SHA-256 (hex) of a code as submitted: codes are stored hashed, never as sent. */
export const hashCode = (code: string): string => bytesToHex(sha256(new TextEncoder().encode(code)))

/** Fresh random bytes from the Ids port (seedable in tests). */
export const randomBytes = (length: number) =>
  Effect.gen(function*() {
    const ids = yield* Ids
    const out = new Uint8Array(length)
    for (let at = 0; at < length; at += 32) {
      const block = sha256(new TextEncoder().encode(`${yield* ids.uuid}${yield* ids.uuid}`))
      out.set(block.subarray(0, Math.min(32, length - at)), at)
    }
    return out
  })

/**
 * A new one-time code: the sandbox's fixed `123456`, or six random digits on production
 * platforms (sent by the provider there: this package has no SMS or email sender, see
 * docs/sca.md). Returns the code and what the record keeps of it.
 */
export const issueCode = (platform: Platform, now: number, ttlMillis: number) =>
  Effect.gen(function*() {
    let code = SANDBOX_SCA_CODE
    if (!platform.settings.sandbox) {
      const bytes = yield* randomBytes(4)
      const n = ((bytes[0] ?? 0) * 2 ** 24 + (bytes[1] ?? 0) * 2 ** 16 + (bytes[2] ?? 0) * 2 ** 8 + (bytes[3] ?? 0)) % 1_000_000
      code = String(n).padStart(6, "0")
    }
    const challenge: CodeChallenge = { codeHash: hashCode(code), expiresAt: now + ttlMillis, attempts: 0 }
    return { code, challenge }
  })

/** The active customer, when its provider mandates SCA and contact verification; else 409 CONFLICT. */
export const scaCustomer = Effect.fnUntraced(function*(platform: Platform, customerId: string, what = "SCA") {
  const rec = yield* activeCustomer(platform, customerId)
  const region = rec.customer.region
  if (!requiresSca(region)) {
    return yield* conflict("CONFLICT", `${what} is not required for customer ${customerId}: its region (${region ?? "none"}) is outside the EEA`, {
      details: { customerId, region: region ?? null }
    })
  }
  return rec
})

/**
 * What a unit of work that must keep its writes and still refuse answers: the writes
 * commit, then `error` fails the call (a counted wrong code, say).
 */
export type Kept<A, E> = { readonly _tag: "Done"; readonly value: A } | { readonly _tag: "Refused"; readonly error: E }
export const done = <A>(value: A): Kept<A, never> => ({ _tag: "Done", value })
export const refused = <E>(error: E): Kept<never, E> => ({ _tag: "Refused", error })
export const settle = <A, E, E2, R>(effect: Effect.Effect<Kept<A, E>, E2, R>): Effect.Effect<A, E | E2, R> =>
  Effect.flatMap(effect, (k) => k._tag === "Done" ? Effect.succeed(k.value) : Effect.fail(k.error))
