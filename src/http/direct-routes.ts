/**
 * The endpoints the direct lane serves: the hot path of registering and reading
 * external accounts, and creating customers. Each entry names the HttpApi endpoint's
 * method, path, success status and schemas (from src/http/api.ts) and calls the same
 * operation as its HttpApi handler, on the platform's clock as the handlers run it. test/http/direct.test.ts holds both paths to the
 * same answers.
 */
import { Schema } from "effect"
import { CustomerCreateRequest, CustomerResponse } from "../domain/customer.js"
import {
  CustomerExternalAccountCreateRequest,
  ExternalAccount,
  PlatformExternalAccountCreateRequest
} from "../domain/external-account.js"
import * as Customers from "../operations/customers.js"
import * as Accounts from "../operations/external-accounts.js"
import { onPlatformClock } from "../operations/time.js"
import { NoParams, NoPayload, route } from "./direct.js"

const customer: Accounts.Owner = { kind: "customer" }
const platform: Accounts.Owner = { kind: "platform" }
const AccountParams = Schema.Struct({ externalAccountId: Schema.String })

export const DIRECT_ROUTES = [
  route({
    method: "POST",
    path: "/customers",
    status: 201,
    params: NoParams,
    payload: CustomerCreateRequest,
    success: CustomerResponse,
    run: (p, { payload }) => onPlatformClock(p, Customers.createCustomer(p, payload))
  }),
  route({
    method: "POST",
    path: "/customers/external-accounts",
    status: 201,
    params: NoParams,
    payload: CustomerExternalAccountCreateRequest,
    success: ExternalAccount,
    run: (p, { payload }) => onPlatformClock(p, Accounts.createCustomerExternalAccount(p, payload))
  }),
  route({
    method: "GET",
    path: "/customers/external-accounts/:externalAccountId",
    status: 200,
    params: AccountParams,
    payload: NoPayload,
    success: ExternalAccount,
    run: (p, { params }) => onPlatformClock(p, Accounts.getExternalAccount(p, customer, params.externalAccountId))
  }),
  route({
    method: "POST",
    path: "/platform/external-accounts",
    status: 201,
    params: NoParams,
    payload: PlatformExternalAccountCreateRequest,
    success: ExternalAccount,
    run: (p, { payload }) => onPlatformClock(p, Accounts.createPlatformExternalAccount(p, payload))
  }),
  route({
    method: "GET",
    path: "/platform/external-accounts/:externalAccountId",
    status: 200,
    params: AccountParams,
    payload: NoPayload,
    success: ExternalAccount,
    run: (p, { params }) => onPlatformClock(p, Accounts.getExternalAccount(p, platform, params.externalAccountId))
  })
]
