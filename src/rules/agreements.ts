/**
 * The agreements a customer accepts (GET /customers/agreements) and the rules for
 * consents on POST and PATCH /customers: at most one entry per type per request, a
 * supported `termsVersion`, not both `agreementConsents` and the deprecated
 * `endUserTermsConsent` (which is one SERVICE_END_USER_TERMS entry). Responses hold
 * the latest acceptance per type.
 */
import type {
  Agreement,
  AgreementConsent,
  AgreementConsentRequest,
  AgreementType,
  EndUserTermsConsentRequest
} from "../domain/customer.js"
import { type FieldProblem, invalidInput, reject, type Rejection } from "./rejection.js"
import { fail, ok, type Result } from "./result.js"

export const LEGAL_BASE_URL = "https://legal.payments-service.dev"

const slug = (t: string) => t.toLowerCase().replace(/_/g, "-")

/** Current version of each agreement; the versions a consent may name. */
export const AGREEMENT_VERSIONS: Readonly<Record<AgreementType, { readonly current: string; readonly supported: ReadonlyArray<string> }>> = {
  SERVICE_END_USER_TERMS: { current: "V1", supported: ["V1"] },
  PRIVACY_POLICY: { current: "V1", supported: ["V1"] },
  E_SIGN_CONSENT: { current: "V1", supported: ["V1"] },
  CARDHOLDER_AGREEMENT: { current: "V1", supported: ["V1"] },
  DEPOSIT_ACCOUNT_AGREEMENT: { current: "V1", supported: ["V1"] },
  DIGITAL_ASSET_CUSTODY_AGREEMENT: { current: "V1", supported: ["V1"] },
  ELECTRONIC_FUND_TRANSFER_DISCLOSURE: { current: "V1", supported: ["V1"] }
}

export const agreementOf = (type: AgreementType): Agreement => {
  const v = AGREEMENT_VERSIONS[type]
  return { type, version: v.current, url: `${LEGAL_BASE_URL}/${slug(type)}/${v.current}` }
}

export const AGREEMENTS: ReadonlyArray<Agreement> = (Object.keys(AGREEMENT_VERSIONS) as Array<AgreementType>).map(agreementOf)

/**
 * The consents a request records, or why it is refused. `endUserTermsConsent` maps
 * onto one SERVICE_END_USER_TERMS entry.
 */
export const consentsOf = (req: {
  readonly agreementConsents?: ReadonlyArray<AgreementConsentRequest> | undefined
  readonly endUserTermsConsent?: EndUserTermsConsentRequest | undefined
}): Result<ReadonlyArray<AgreementConsent>, Rejection<"INVALID_INPUT" | "END_USER_TERMS_VERSION_NOT_FOUND">> => {
  if (req.agreementConsents !== undefined && req.endUserTermsConsent !== undefined) {
    return fail(invalidInput("Send agreementConsents or the deprecated endUserTermsConsent, not both", [{
      field: "endUserTermsConsent",
      constraint: "exclusive",
      message: "cannot be sent together with agreementConsents"
    }]))
  }
  const deprecated = req.endUserTermsConsent !== undefined
  const list: ReadonlyArray<AgreementConsent> = req.endUserTermsConsent !== undefined
    ? [{ type: "SERVICE_END_USER_TERMS", ...req.endUserTermsConsent }]
    : req.agreementConsents ?? []
  const seen = new Set<string>()
  const duplicates: Array<FieldProblem> = []
  const unknown: Array<FieldProblem> = []
  for (const [i, c] of list.entries()) {
    const at = deprecated ? "endUserTermsConsent" : `agreementConsents[${i}]`
    if (seen.has(c.type)) {
      duplicates.push({ field: `${at}.type`, constraint: "unique", message: "at most one entry per agreement type per request" })
    }
    seen.add(c.type)
    const versions = AGREEMENT_VERSIONS[c.type]
    if (!versions.supported.includes(c.termsVersion)) {
      unknown.push({
        field: `${at}.termsVersion`,
        constraint: "supportedVersion",
        message: `${c.termsVersion} is not a version of ${c.type}; the current version is ${versions.current} (GET /customers/agreements)`
      })
    }
  }
  if (duplicates.length > 0) {
    return fail(invalidInput(`agreementConsents holds an agreement type more than once`, duplicates))
  }
  if (unknown.length > 0) {
    return fail(reject("END_USER_TERMS_VERSION_NOT_FOUND", unknown.length === 1
      ? `Unsupported termsVersion: ${unknown[0]!.message}`
      : `${unknown.length} consents name an unsupported termsVersion (see details.errors)`, { errors: unknown }))
  }
  return ok(list)
}

/** Latest acceptance per type: a later acceptance replaces an earlier one of its type; other types stay. */
export const mergeConsents = (
  existing: ReadonlyArray<AgreementConsent>,
  added: ReadonlyArray<AgreementConsent>
): ReadonlyArray<AgreementConsent> => {
  const byType = new Map(existing.map((c) => [c.type, c]))
  for (const c of added) {
    const prev = byType.get(c.type)
    if (prev === undefined || Date.parse(prev.acceptedAt) <= Date.parse(c.acceptedAt)) byType.set(c.type, c)
  }
  return [...byType.values()]
}

/** The deprecated view of the SERVICE_END_USER_TERMS acceptance, if there is one. */
export const endUserTermsConsentOf = (consents: ReadonlyArray<AgreementConsent>): EndUserTermsConsentRequest | undefined => {
  const c = consents.find((x) => x.type === "SERVICE_END_USER_TERMS")
  return c === undefined ? undefined : {
    acceptedAt: c.acceptedAt,
    ipAddress: c.ipAddress,
    termsVersion: c.termsVersion,
    acceptanceMethod: c.acceptanceMethod
  }
}
