/**
 * The onboarding sequence shared by embed-memory.ts and embed-postgres.ts. It is
 * written against the ports only (Store, Ids), so the two examples differ in nothing
 * but the Layer they provide: that is the point of embedding the operations.
 */
import { Effect, Predicate } from "effect"
// published as: import { platformFromConfig, type Platform } from "payments-service"
import { type Platform, platformFromConfig } from "../../src/index.js"
// published as: import { createCustomer, ... } from "payments-service/operations"
import { createCustomer, createCustomerExternalAccount, listExternalAccounts, Store } from "../../src/operations/index.js"

/**
 * The embedding service's one platform. "Skip verification paperwork" makes sandbox
 * KYC resolve when the customer is created, so the outbox has an event to show.
 */
export const platform: Platform = platformFromConfig({
  id: "acme",
  name: "Acme Payroll",
  clientId: "acme_client_id",
  clientSecret: "acme_client_secret",
  skipVerificationPaperwork: true
})

/** Creates a customer and a USD bank account for it, then reads back what a webhook relay would see. */
export const onboard = Effect.fn("onboard")(function*(p: Platform) {
  const store = yield* Store
  const customer = yield* createCustomer(p, { customerType: "INDIVIDUAL", fullName: "Ada Lovelace" })
  const account = yield* createCustomerExternalAccount(p, {
    customerId: customer.id,
    currency: "USD",
    accountInfo: {
      accountType: "USD_ACCOUNT",
      accountNumber: "123456789",
      routingNumber: "021000021",
      bankAccountType: "CHECKING",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" }
    }
  })
  const accounts = yield* listExternalAccounts(p, { kind: "customer" }, { customerId: customer.id })
  // The outbox is per platform and persistent (on PostgreSQL it outlives this run), so
  // keep only the events about this run's customer and its account.
  const ours = new Set<unknown>([customer.id, account.id])
  const events = (yield* store.events.list(p.id)).filter(({ event }) =>
    Predicate.hasProperty(event.data, "id") && ours.has(event.data.id)
  )
  return { store: store.info, customer, account, accounts, events }
})

/** The summary both examples print. */
export const summary = ({ store, customer, account, accounts, events }: Effect.Success<ReturnType<typeof onboard>>) =>
  [
    `store:    ${store.description}`,
    `customer: ${customer.id} (${customer.customerType === "INDIVIDUAL" ? `kycStatus ${customer.kycStatus}` : "business"})`,
    `account:  ${account.id} ${account.currency} ${account.status}`,
    `listed:   ${accounts.data.length} external account(s) for the customer (totalCount ${accounts.totalCount})`,
    `outbox:   ${events.map(({ seq, event }) => `#${seq} ${event.type}`).join(", ") || "(no events)"}`
  ].join("\n")
