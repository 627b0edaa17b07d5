/**
 * The hosted KYC/KYB link (reference `KycLinkCreateRequest`, `KycLinkResponse`) and the
 * sandbox's hosted flow behind it (ours: `GET`/`POST /sandbox/kyc-link?token=…`, a page
 * a person or a test completes).
 */
import { Schema } from "effect"
import { maxChars, NamedStruct } from "./common.js"

/** The longest `redirectUri` accepted. */
export const MAX_REDIRECT_URI_LENGTH = 2048

export const KycLinkCreateRequest = NamedStruct("KycLinkCreateRequest", {
  redirectUri: Schema.optionalKey(
    Schema.String.check(
      maxChars(MAX_REDIRECT_URI_LENGTH),
      Schema.isPattern(/^https?:\/\/[^\s/?#]+[^\s]*$/, { message: "must be an https:// (or http:// for local development) URI" })
    )
  )
})
export type KycLinkCreateRequest = typeof KycLinkCreateRequest.Type

export const KycProvider = Schema.Literal("SUMSUB").annotate({ identifier: "KycProvider" })

export const KycLinkResponse = NamedStruct("KycLinkResponse", {
  kycUrl: Schema.String,
  expiresAt: Schema.String,
  provider: KycProvider,
  token: Schema.optionalKey(Schema.String)
})
export type KycLinkResponse = typeof KycLinkResponse.Type

/** The longest hosted-flow token a query may carry (the ones issued are far shorter). */
export const MAX_KYC_LINK_TOKEN_LENGTH = 2048

/** The hosted page's form: the customer confirms the submission. */
export const HostedKycForm = NamedStruct("HostedKycForm", {
  confirm: Schema.Literal("submit")
})
