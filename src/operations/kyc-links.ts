/**
 * The hosted KYC/KYB link: POST /customers/{customerId}/kyc-link issues a single-use
 * link good for 24 hours of the platform's clock; the sandbox serves the hosted flow
 * behind it (GET /sandbox/kyc-link?token=: the page; POST: the customer submits). The
 * submission is POST /verifications itself (same rules, same sandbox outcomes by name or
 * registration-number suffix, same CUSTOMER.* and VERIFICATION.* events), run once per
 * link: its nonce is the submission's idempotency key, so submitting again shows the
 * first result and changes nothing.
 */
import { Effect, Schema } from "effect"
import { badRequest, conflict, type Error400, type Error404, Error501 } from "../domain/errors.js"
import type { KycLinkCreateRequest, KycLinkResponse } from "../domain/kyc-link.js"
import { KycLinkResponse as KycLinkResponseSchema } from "../domain/kyc-link.js"
import type { Platform } from "../domain/platform.js"
import { Verification } from "../domain/verification.js"
import { Ids } from "../ports/ids.js"
import { Platforms } from "../ports/platforms.js"
import { Store } from "../ports/store.js"
import { KYC_LINK_TTL_MILLIS, type KycLinkClaims, platformOfToken, signKycLink, verifyKycLink } from "../rules/kyc-link.js"
import { unverifiedChannels } from "../rules/sca.js"
import { activeCustomer } from "./customers.js"
import { idempotent } from "./idempotency.js"
import { isoOf, nowMillis, onPlatformClock } from "./time.js"
import { submitVerification } from "./verifications.js"
import { missing } from "./not-found.js"

const productionHasNoProvider = () =>
  new Error501({
    code: "NOT_IMPLEMENTED",
    reason: "No hosted KYC provider is connected to production platforms here; submit the customer's data and POST /verifications instead"
  })

/**
 * POST /customers/{customerId}/kyc-link: `hostedBase` is where this server is reached (e.g.
 * `http://localhost:3000/2025-10-13`). Its `Idempotency-Key` is declared on the endpoint
 * and applied with the other declared concerns (src/http/concerns.ts).
 */
export const createKycLink = (platform: Platform, customerId: string, req: KycLinkCreateRequest, hostedBase: string) =>
  Effect.gen(function*() {
    if (!platform.settings.sandbox) return yield* productionHasNoProvider()
    const rec = yield* activeCustomer(platform, customerId)
    const unverified = unverifiedChannels(rec.customer.contactVerification)
    if (unverified.length > 0) {
      return yield* conflict("CONFLICT", `Contact verification is not complete: ${unverified.join(" and ")} must be VERIFIED before a KYC link is generated`, {
        details: { contactVerification: rec.customer.contactVerification, unverified }
      })
    }
    const expiresAtMillis = (yield* nowMillis) + KYC_LINK_TTL_MILLIS
    const nonce = (yield* (yield* Ids).uuid).replace(/-/g, "")
    const token = signKycLink({ platformId: platform.id, customerId: rec.customer.id, nonce, expiresAtMillis, redirectUri: req.redirectUri }, platform.clientSecret)
    const answer: KycLinkResponse = {
      kycUrl: `${hostedBase}/sandbox/kyc-link?token=${token}`,
      expiresAt: isoOf(expiresAtMillis),
      provider: "SUMSUB"
    }
    return answer
  })

const noSuchLink = () => missing("kycLink", "No such KYC link: it was not issued by this server, or it was altered")

/** The link's platform and claims, or 404 for anything not issued here (or issued to a production platform). */
const resolve = Effect.fnUntraced(function*(token: string): Effect.fn.Return<{ readonly platform: Platform; readonly claims: KycLinkClaims }, Error404, Platforms> {
  const platformId = platformOfToken(token)
  if (platformId === undefined) return yield* noSuchLink()
  const platform = (yield* (yield* Platforms).all).find((p) => p.id === platformId)
  if (platform === undefined || !platform.settings.sandbox) return yield* noSuchLink()
  const claims = verifyKycLink(token, platform.clientSecret)
  if (claims === undefined) return yield* noSuchLink()
  return { platform, claims }
})

const expired = (claims: KycLinkClaims): Error400 =>
  badRequest("EXPIRED", `This KYC link expired at ${isoOf(claims.expiresAtMillis)}; ask for a new one (POST /customers/{customerId}/kyc-link)`)

const submissionKey = (claims: KycLinkClaims) => `kyc-link:${claims.nonce}`

export interface HostedKycView {
  readonly platformName: string
  readonly customerId: string
  readonly customerType: "INDIVIDUAL" | "BUSINESS"
  readonly name: string
  /** kycStatus or kybStatus. */
  readonly status: string
  readonly expiresAt: string
  readonly redirectUri?: string | undefined
  /** The verification this link submitted, once it has. */
  readonly verification?: Verification | undefined
}

const viewOf = Effect.fnUntraced(function*(platform: Platform, claims: KycLinkClaims, verification: Verification | undefined) {
  const rec = yield* activeCustomer(platform, claims.customerId)
  const c = rec.customer
  const view: HostedKycView = {
    platformName: platform.name,
    customerId: c.id,
    customerType: c.customerType,
    name: c.customerType === "INDIVIDUAL" ? c.fullName ?? c.platformCustomerId : c.businessInfo.legalName,
    status: c.customerType === "INDIVIDUAL" ? c.kycStatus : c.kybStatus,
    expiresAt: isoOf(claims.expiresAtMillis),
    redirectUri: claims.redirectUri,
    verification
  }
  return view
})

/** What this link submitted already, if it has (its submission's idempotency record). */
const usedBy = Effect.fnUntraced(function*(platform: Platform, claims: KycLinkClaims) {
  const store = yield* Store
  const record = yield* store.idempotency.get(platform.id, submissionKey(claims), yield* nowMillis)
  if (record === undefined) return undefined
  return yield* Effect.orDie(Schema.decodeUnknownEffect(Verification)(record.body))
})

/** GET /sandbox/kyc-link?token=: the page's content (the customer, and the result once submitted). */
export const hostedView = (token: string) =>
  Effect.flatMap(resolve(token), ({ platform, claims }) =>
    onPlatformClock(platform, Effect.gen(function*() {
      const used = yield* usedBy(platform, claims)
      if (used === undefined && (yield* nowMillis) >= claims.expiresAtMillis) return yield* expired(claims)
      return yield* viewOf(platform, claims, used)
    })))

/**
 * POST /sandbox/kyc-link?token=…: the customer submits. The first submission is
 * POST /verifications for the customer; a later one (the link is single-use) shows the
 * same verification again and changes nothing.
 */
export const hostedSubmit = (token: string) =>
  Effect.flatMap(resolve(token), ({ platform, claims }) =>
    onPlatformClock(platform, Effect.gen(function*() {
      const used = yield* usedBy(platform, claims)
      if (used !== undefined) return yield* viewOf(platform, claims, used)
      if ((yield* nowMillis) >= claims.expiresAtMillis) return yield* expired(claims)
      // Bound to the link's single-use key, as POST /verifications with an Idempotency-Key is.
      const request = { customerId: claims.customerId }
      const verification = yield* idempotent(
        platform,
        { key: submissionKey(claims), operation: "POST /verifications", request, result: Verification },
        submitVerification(platform, request)
      )
      return yield* viewOf(platform, claims, verification)
    })))
