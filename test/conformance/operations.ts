/**
 * The operations each conformance suite checks against the reference, as
 * `METHOD /path` with `{}` for each path parameter. Each suite fails if it did not check
 * every operation of its list, and test/conformance/coverage.test.ts fails if a built
 * endpoint with a reference response schema is in none of the lists. (The lists live
 * here, not in the suites, so the guard can read them without running the suites.)
 */

/** test/conformance/onboarding.test.ts */
export const ONBOARDING_OPERATIONS = [
  "POST /customers", "GET /customers", "GET /customers/{}", "PATCH /customers/{}", "DELETE /customers/{}",
  "GET /customers/end-user-terms",
  "POST /documents", "GET /documents",
  "GET /documents/{}", "PUT /documents/{}",
  "POST /verifications", "GET /verifications", "GET /verifications/{}",
  "POST /beneficial-owners", "GET /beneficial-owners", "GET /beneficial-owners/{}", "PATCH /beneficial-owners/{}"
] as const

/** test/conformance/external-account.test.ts */
export const EXTERNAL_ACCOUNT_OPERATIONS = [
  "POST /customers/external-accounts", "GET /customers/external-accounts", "GET /customers/external-accounts/{}",
  "POST /customers/external-accounts/{}/challenge", "POST /customers/external-accounts/{}/verify",
  "POST /customers/external-accounts/{}/trust", "POST /customers/external-accounts/{}/trust/confirm",
  "POST /customers/external-accounts/{}/untrust", "POST /customers/external-accounts/{}/untrust/confirm",
  "POST /platform/external-accounts", "GET /platform/external-accounts", "GET /platform/external-accounts/{}",
  "POST /platform/external-accounts/{}/challenge", "POST /platform/external-accounts/{}/verify"
] as const

/** test/conformance/money.test.ts */
export const MONEY_OPERATIONS = [
  "GET /customers/internal-accounts", "GET /platform/internal-accounts", "POST /sandbox/internal-accounts/{}/fund",
  "GET /config", "PATCH /config", "PATCH /platform/config", "GET /exchange-rates",
  "POST /quotes", "GET /quotes/{}", "POST /quotes/{}/execute",
  "GET /transactions", "GET /transactions/{}", "POST /transactions/{}/cancel", "POST /transactions/{}/confirm",
  "POST /transfer-in", "POST /transfer-out", "POST /sandbox/send", "POST /sandbox/uma/receive"
] as const

/** test/conformance/lookups.test.ts */
export const LOOKUP_OPERATIONS = ["GET /discoveries", "GET /receiver/uma/{}", "GET /receiver/external-account/{}"] as const

/** test/conformance/wallets.test.ts */
export const WALLET_OPERATIONS = [
  "POST /auth/credentials", "GET /auth/credentials", "DELETE /auth/credentials/{}",
  "POST /auth/credentials/{}/challenge", "POST /auth/credentials/{}/verify",
  "GET /auth/sessions", "DELETE /auth/sessions/{}", "POST /auth/sessions/{}/refresh",
  "PATCH /internal-accounts/{}", "POST /internal-accounts/{}/export"
] as const

/** test/conformance/webhooks.test.ts (the webhook payloads are checked there too, by type). */
export const WEBHOOK_OPERATIONS = [
  "POST /sandbox/webhooks/test",
  "POST /transactions/{}/approve", "POST /transactions/{}/reject"
] as const

/** Ours (no reference operation): checked in test/conformance/webhooks.test.ts against our own schemas. */
export const WEBHOOK_OURS = [
  "GET /webhooks/public-key", "GET /sandbox/webhooks/deliveries", "POST /sandbox/webhooks/deliveries/{}/redeliver"
] as const

export const SUITES = {
  "onboarding.test.ts": ONBOARDING_OPERATIONS,
  "external-account.test.ts": EXTERNAL_ACCOUNT_OPERATIONS,
  "money.test.ts": MONEY_OPERATIONS,
  "lookups.test.ts": LOOKUP_OPERATIONS,
  "wallets.test.ts": WALLET_OPERATIONS,
  "webhooks.test.ts": WEBHOOK_OPERATIONS
} as const satisfies Record<string, ReadonlyArray<string>>
