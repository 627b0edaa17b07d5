import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Customers from "../../operations/customers.js"
import { PaymentsApi } from "../api.js"

export const AgreementsHandlers = HttpApiBuilder.group(PaymentsApi, "agreements", (handlers) =>
  Effect.succeed(
    handlers
      .handle("listAgreements", () => Customers.listAgreements)
      .handle("getEndUserTerms", () => Customers.getEndUserTerms)
  ))
