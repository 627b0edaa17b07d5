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
  "PATCH /internal-accounts/{}", "POST /internal-accounts/{}/export",
  "POST /auth/delegated-keys", "GET /auth/delegated-keys", "GET /auth/delegated-keys/{}"
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

/** Ours, sandbox only (docs/sandbox-insight.md): checked in test/conformance/sandbox-insight.test.ts against our own schemas. */
export const INSIGHT_OURS = [
  "GET /sandbox/ledger/audit", "GET /sandbox/internal-accounts/{}/journal", "GET /sandbox/requests"
] as const

/** test/conformance/cards.test.ts (the CARD.* webhook payloads are checked there too). */
export const CARD_OPERATIONS = [
  "POST /cards", "GET /cards", "GET /cards/{}", "PATCH /cards/{}", "POST /cards/{}/reveal"
] as const

/** SPEC.md's (no reference operation) and ours: checked in test/conformance/cards.test.ts against our own schemas. */
export const CARD_OURS = [
  "GET /cards/{}/set-pin-url", "POST /cards/{}/set-pin", "POST /cards/{}/pin/unblock", "POST /cards/{}/tokenize",
  "POST /sandbox/cards/{}/pin-entry"
] as const

/** test/conformance/card-transactions.test.ts (card rows in GET /transactions and the CARD_TRANSACTION.* payloads are checked there too). */
export const CARD_TRANSACTION_OPERATIONS = [
  "POST /sandbox/cards/{}/simulate/authorization", "POST /sandbox/cards/{}/simulate/clearing",
  "POST /sandbox/cards/{}/simulate/return", "POST /sandbox/cards/{}/simulate/balance_inquiry",
  "POST /sandbox/cards/{}/simulate/credit_authorization", "POST /sandbox/cards/{}/simulate/financial_authorization",
  "POST /sandbox/cards/{}/simulate/financial_credit_authorization", "POST /sandbox/cards/{}/simulate/authorization_advice",
  "POST /sandbox/cards/{}/simulate/credit_authorization_advice", "POST /sandbox/cards/{}/simulate/return_reversal"
] as const

/** test/conformance/sca.test.ts */
export const SCA_OPERATIONS = [
  "POST /customers/{}/verify-email", "POST /customers/{}/verify-email/confirm",
  "POST /customers/{}/verify-phone", "POST /customers/{}/verify-phone/confirm",
  "GET /sca/factors", "POST /sca/factors", "POST /sca/factors/confirm", "DELETE /sca/factors/{}",
  "POST /sca/login/start", "POST /sca/login/complete", "POST /sca/record-event",
  "POST /sca/factors/reset", "GET /sca/factors/reset/{}", "POST /sca/factors/reset/{}/complete",
  "POST /quotes/{}/authorize", "POST /quotes/{}/authorize/resend"
] as const

/** test/conformance/stablecoins.test.ts */
export const STABLECOIN_OPERATIONS = [
  "POST /stablecoin-provider-accounts", "GET /stablecoin-provider-accounts", "GET /stablecoin-provider-accounts/{}",
  "POST /stablecoins", "GET /stablecoins", "GET /stablecoins/{}",
  "POST /stablecoins/{}/mints", "POST /stablecoins/{}/burns", "GET /stablecoins/{}/operations", "GET /stablecoin-operations/{}"
] as const

/** Ours (no reference operation: SPEC.md's enablement request): checked in test/conformance/stablecoins.test.ts. */
export const STABLECOIN_OURS = ["POST /stablecoins/{}/grid-operations-enablement"] as const

/** test/conformance/agents.test.ts */
export const AGENT_OPERATIONS = [
  "POST /agents", "GET /agents", "GET /agents/approvals", "GET /agents/{}", "PATCH /agents/{}", "PATCH /agents/{}/policy",
  "POST /agents/{}/device-codes", "GET /agents/device-codes/{}/status", "POST /agents/device-codes/{}/redeem",
  "GET /agents/me", "GET /agents/me/actions", "GET /agents/me/actions/{}",
  "POST /agents/{}/actions/{}/approve", "POST /agents/{}/actions/{}/reject",
  "GET /agents/me/transactions", "GET /agents/me/transactions/{}",
  "POST /agents/me/quotes", "GET /agents/me/quotes/{}", "POST /agents/me/quotes/{}/execute",
  "POST /agents/me/transfer-in", "POST /agents/me/transfer-out",
  "GET /agents/me/internal-accounts",
  "GET /agents/me/external-accounts", "POST /agents/me/external-accounts", "GET /agents/me/external-accounts/{}"
] as const

/** test/conformance/directories.test.ts */
export const DIRECTORY_OPERATIONS = ["GET /vasps", "GET /uma-providers", "POST /crypto/estimate-withdrawal-fee"] as const

/** test/conformance/invitations.test.ts */
export const INVITATION_OPERATIONS = ["POST /invitations", "GET /invitations/{}", "POST /invitations/{}/claim", "POST /invitations/{}/cancel"] as const

/** test/conformance/bulk-customers.test.ts */
export const BULK_CUSTOMER_OPERATIONS = ["POST /customers/bulk/csv", "GET /customers/bulk/jobs/{}"] as const

/** test/conformance/kyc-links.test.ts */
export const KYC_LINK_OPERATIONS = ["POST /customers/{}/kyc-link"] as const

/** test/conformance/tokens.test.ts */
export const TOKEN_OPERATIONS = ["POST /tokens", "GET /tokens", "GET /tokens/{}"] as const

export const SUITES = {
  "onboarding.test.ts": ONBOARDING_OPERATIONS,
  "external-account.test.ts": EXTERNAL_ACCOUNT_OPERATIONS,
  "money.test.ts": MONEY_OPERATIONS,
  "lookups.test.ts": LOOKUP_OPERATIONS,
  "wallets.test.ts": WALLET_OPERATIONS,
  "webhooks.test.ts": WEBHOOK_OPERATIONS,
  "cards.test.ts": CARD_OPERATIONS,
  "stablecoins.test.ts": STABLECOIN_OPERATIONS,
  "card-transactions.test.ts": CARD_TRANSACTION_OPERATIONS,
  "sca.test.ts": SCA_OPERATIONS,
  "agents.test.ts": AGENT_OPERATIONS,
  "directories.test.ts": DIRECTORY_OPERATIONS,
  "invitations.test.ts": INVITATION_OPERATIONS,
  "kyc-links.test.ts": KYC_LINK_OPERATIONS,
  "bulk-customers.test.ts": BULK_CUSTOMER_OPERATIONS,
  "tokens.test.ts": TOKEN_OPERATIONS
} as const satisfies Record<string, ReadonlyArray<string>>
