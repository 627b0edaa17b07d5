/** Customers: create, list, read, update (a signed wallet action for some contact changes) and delete. */
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { CountryCode, CurrencyCode, IdText, ListResponse } from "../../domain/common.js"
import { CustomerCreateRequest, CustomerResponse, CustomerType, CustomerUpdateRequest } from "../../domain/customer.js"
import { Error404, Error409, Error410 } from "../../domain/errors.js"
import { SignedRequestChallenge, SignedRequestHeaders } from "../../domain/wallet.js"
import { accepted, acts, apiGroup, byId, CreatedUpdatedFilters, creates, NotFoundOrConflict, page } from "../endpoints.js"

const BooleanFromString = Schema.Literals(["true", "false"])

const customerParams = { customerId: IdText }

// ---------------------------------------------------------------- customers

export class CustomersGroup extends apiGroup("customers", { title: "Customers", permission: "MANAGE" },
  HttpApiEndpoint.post("createCustomer", "/customers", creates(CustomerCreateRequest, CustomerResponse, Error409)),
  HttpApiEndpoint.get("listCustomers", "/customers", {
    query: page({
      platformCustomerId: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))),
      customerType: Schema.optionalKey(CustomerType),
      ...CreatedUpdatedFilters,
      region: Schema.optionalKey(CountryCode),
      currency: Schema.optionalKey(CurrencyCode),
      umaAddress: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))),
      isIncludingDeleted: Schema.optionalKey(BooleanFromString)
    }),
    success: ListResponse(CustomerResponse, "CustomerListResponse")
  }),
  HttpApiEndpoint.get("getCustomer", "/customers/:customerId", byId(customerParams, CustomerResponse)),
  HttpApiEndpoint.patch("updateCustomer", "/customers/:customerId", {
    headers: SignedRequestHeaders,
    ...acts(customerParams, CustomerUpdateRequest, [CustomerResponse, accepted(SignedRequestChallenge)], NotFoundOrConflict)
  }).annotate(
    OpenApi.Description,
    "Changing email (phoneNumber) of a customer whose embedded wallet has an EMAIL_OTP (SMS_OTP) credential is a signed wallet action: 202 with payloadToSign, then the same request with Service-Wallet-Signature and Request-Id. Every other update completes at once."
  ),
  HttpApiEndpoint.delete("deleteCustomer", "/customers/:customerId", { params: customerParams, success: CustomerResponse, error: [Error404, Error410] })
) {}
