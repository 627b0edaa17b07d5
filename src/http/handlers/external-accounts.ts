import * as Accounts from "../../operations/external-accounts.js"
import { CustomerExternalAccountsGroup, PlatformExternalAccountsGroup } from "../groups/external-accounts.js"
import { implement } from "../concerns.js"
import type { LaneRequest } from "../direct.js"
import { run } from "./run.js"

const customer: Accounts.Owner = { kind: "customer" }
const platform: Accounts.Owner = { kind: "platform" }

const customerEndpoints = CustomerExternalAccountsGroup.endpoints
const platformEndpoints = PlatformExternalAccountsGroup.endpoints

// The handlers the direct lane serves as well (src/http/direct-routes.ts): one function, both paths.

export const createCustomerExternalAccount = (
  { payload }: LaneRequest<typeof customerEndpoints.createCustomerExternalAccount>
) => run((p) => Accounts.createCustomerExternalAccount(p, payload))

/** A request on the external account its path names. */
interface OnAccount {
  readonly params: { readonly externalAccountId: string }
}

/**
 * The handlers of one external account, the same for a customer's and the platform's
 * (their endpoints have the same schemas): `get` is served by the direct lane as well.
 */
const accountHandlers = (owner: Accounts.Owner) => ({
  list: ({ query }: { readonly query: Parameters<typeof Accounts.listExternalAccounts>[2] }) =>
    run((p) => Accounts.listExternalAccounts(p, owner, query)),
  get: ({ params }: OnAccount) => run((p) => Accounts.getExternalAccount(p, owner, params.externalAccountId)),
  delete: ({ params }: OnAccount) => run((p) => Accounts.deleteExternalAccount(p, owner, params.externalAccountId)),
  challenge: ({ params, payload }: OnAccount & { readonly payload: { readonly method: Parameters<typeof Accounts.startOwnershipChallenge>[3] } }) =>
    run((p) => Accounts.startOwnershipChallenge(p, owner, params.externalAccountId, payload.method)),
  verify: ({ params, payload }: OnAccount & { readonly payload: { readonly signature: Parameters<typeof Accounts.verifyOwnership>[3] } }) =>
    run((p) => Accounts.verifyOwnership(p, owner, params.externalAccountId, payload.signature))
})

const customerAccount = accountHandlers(customer)
const platformAccount = accountHandlers(platform)

export const getCustomerExternalAccount = customerAccount.get

export const createPlatformExternalAccount = (
  { payload }: LaneRequest<typeof platformEndpoints.createPlatformExternalAccount>
) => run((p) => Accounts.createPlatformExternalAccount(p, payload))

export const getPlatformExternalAccount = platformAccount.get

export const CustomerExternalAccountsHandlers = implement(CustomerExternalAccountsGroup, (handlers) =>
  handlers
    .handle("createCustomerExternalAccount", createCustomerExternalAccount)
    .handle("listCustomerExternalAccounts", customerAccount.list)
    .handle("getCustomerExternalAccount", customerAccount.get)
    .handle("deleteCustomerExternalAccount", customerAccount.delete)
    .handle("createExternalAccountOwnershipChallenge", customerAccount.challenge)
    .handle("verifyExternalAccountOwnership", customerAccount.verify)
    .handle("startBeneficiaryTrust", ({ params }) => run((p) => Accounts.startTrustChange(p, params.externalAccountId, true)))
    .handle("confirmBeneficiaryTrust", ({ params, payload }) => run((p) => Accounts.confirmTrustChange(p, params.externalAccountId, true, payload)))
    .handle("startBeneficiaryUntrust", ({ params }) => run((p) => Accounts.startTrustChange(p, params.externalAccountId, false)))
    .handle("confirmBeneficiaryUntrust", ({ params, payload }) => run((p) => Accounts.confirmTrustChange(p, params.externalAccountId, false, payload))))

export const PlatformExternalAccountsHandlers = implement(PlatformExternalAccountsGroup, (handlers) =>
  handlers
    .handle("createPlatformExternalAccount", createPlatformExternalAccount)
    .handle("listPlatformExternalAccounts", platformAccount.list)
    .handle("getPlatformExternalAccount", platformAccount.get)
    .handle("deletePlatformExternalAccount", platformAccount.delete)
    .handle("createPlatformExternalAccountOwnershipChallenge", platformAccount.challenge)
    .handle("verifyPlatformExternalAccountOwnership", platformAccount.verify))
