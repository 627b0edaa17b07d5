import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Customers from "../../operations/customers.js"
import { PaymentsApi } from "../api.js"
import { run } from "./run.js"

export const CustomersHandlers = HttpApiBuilder.group(PaymentsApi, "customers", (handlers) =>
  Effect.sync(() => handlers
    .handle("createCustomer", ({ headers, payload }) => run((p) => Customers.createCustomer(p, payload, headers["idempotency-key"])))
    .handle("listCustomers", ({ query }) =>
      run((p) => Customers.listCustomers(p, query)))
    .handle("getCustomer", ({ params }) => run((p) => Customers.getCustomer(p, params.customerId)))
    .handle("updateCustomer", ({ params, payload }) =>
      run((p) => Customers.updateCustomer(p, params.customerId, payload)))
    .handle("deleteCustomer", ({ params }) => run((p) => Customers.deleteCustomer(p, params.customerId))))
)
