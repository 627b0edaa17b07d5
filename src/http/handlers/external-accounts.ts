import * as Accounts from "../../operations/external-accounts.js"
import { PaymentsApi } from "../api.js"
import { group } from "../concerns.js"
import type { LaneRequest } from "../direct.js"
import { run } from "./run.js"

const customer: Accounts.Owner = { kind: "customer" }
const platform: Accounts.Owner = { kind: "platform" }

const customerEndpoints = PaymentsApi.groups.customerExternalAccounts.endpoints
const platformEndpoints = PaymentsApi.groups.platformExternalAccounts.endpoints

// The handlers the direct lane serves as well (src/http/direct-routes.ts): one function, both paths.

export const createCustomerExternalAccount = (
  { payload }: LaneRequest<typeof customerEndpoints.createCustomerExternalAccount>
) => run((p) => Accounts.createCustomerExternalAccount(p, payload))

export const getCustomerExternalAccount = ({ params }: LaneRequest<typeof customerEndpoints.getCustomerExternalAccount>) =>
  run((p) => Accounts.getExternalAccount(p, customer, params.externalAccountId))

export const createPlatformExternalAccount = (
  { payload }: LaneRequest<typeof platformEndpoints.createPlatformExternalAccount>
) => run((p) => Accounts.createPlatformExternalAccount(p, payload))

export const getPlatformExternalAccount = ({ params }: LaneRequest<typeof platformEndpoints.getPlatformExternalAccount>) =>
  run((p) => Accounts.getExternalAccount(p, platform, params.externalAccountId))

export const CustomerExternalAccountsHandlers = group("customerExternalAccounts", (handlers) =>
  handlers
  .handle("createCustomerExternalAccount", createCustomerExternalAccount)
  .handle("listCustomerExternalAccounts", ({ query }) =>
    run((p) => Accounts.listExternalAccounts(p, customer, query)))
  .handle("getCustomerExternalAccount", getCustomerExternalAccount)
  .handle("deleteCustomerExternalAccount", ({ params }) =>
    run((p) => Accounts.deleteExternalAccount(p, customer, params.externalAccountId)))
  .handle("createExternalAccountOwnershipChallenge", ({ params, payload }) =>
    run((p) => Accounts.startOwnershipChallenge(p, customer, params.externalAccountId, payload.method)))
  .handle("verifyExternalAccountOwnership", ({ params, payload }) =>
    run((p) => Accounts.verifyOwnership(p, customer, params.externalAccountId, payload.signature)))
  .handle("startBeneficiaryTrust", ({ params }) =>
    run((p) => Accounts.startTrustChange(p, params.externalAccountId, true)))
  .handle("confirmBeneficiaryTrust", ({ params, payload }) =>
    run((p) => Accounts.confirmTrustChange(p, params.externalAccountId, true, payload)))
  .handle("startBeneficiaryUntrust", ({ params }) =>
    run((p) => Accounts.startTrustChange(p, params.externalAccountId, false)))
  .handle("confirmBeneficiaryUntrust", ({ params, payload }) =>
    run((p) => Accounts.confirmTrustChange(p, params.externalAccountId, false, payload)))
)

export const PlatformExternalAccountsHandlers = group("platformExternalAccounts", (handlers) =>
  handlers
  .handle("createPlatformExternalAccount", createPlatformExternalAccount)
  .handle("listPlatformExternalAccounts", ({ query }) =>
    run((p) => Accounts.listExternalAccounts(p, platform, query)))
  .handle("getPlatformExternalAccount", getPlatformExternalAccount)
  .handle("deletePlatformExternalAccount", ({ params }) =>
    run((p) => Accounts.deleteExternalAccount(p, platform, params.externalAccountId)))
  .handle("createPlatformExternalAccountOwnershipChallenge", ({ params, payload }) =>
    run((p) => Accounts.startOwnershipChallenge(p, platform, params.externalAccountId, payload.method)))
  .handle("verifyPlatformExternalAccountOwnership", ({ params, payload }) =>
    run((p) => Accounts.verifyOwnership(p, platform, params.externalAccountId, payload.signature)))
)
