import { Effect } from "effect"
import * as Customers from "../../operations/customers.js"
import { CustomersGroup } from "../groups/customers.js"
import { implement } from "../concerns.js"
import type { LaneRequest } from "../direct.js"
import { run } from "./run.js"
import { answer, signedHeaders } from "./wallets.js"

const endpoints = CustomersGroup.endpoints

/** POST /customers: registered by the group below and served by the direct lane too. */
export const createCustomer = ({ payload }: LaneRequest<typeof endpoints.createCustomer>) =>
  run((p) => Customers.createCustomer(p, payload))

export const CustomersHandlers = implement(CustomersGroup, (handlers) =>
  handlers
    .handle("createCustomer", createCustomer)
    .handle("listCustomers", ({ query }) => run((p) => Customers.listCustomers(p, query)))
    .handle("getCustomer", ({ params }) => run((p) => Customers.getCustomer(p, params.customerId)))
    .handle("updateCustomer", ({ headers, params, payload }) =>
      Effect.map(run((p) => Customers.updateCustomer(p, params.customerId, payload, signedHeaders(headers))), (s) => answer(s, (v) => v)))
    .handle("deleteCustomer", ({ params }) => run((p) => Customers.deleteCustomer(p, params.customerId)))
)
