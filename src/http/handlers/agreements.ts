import { Effect } from "effect"
import * as Customers from "../../operations/customers.js"
import { group } from "../concerns.js"

export const AgreementsHandlers = group("agreements", (handlers) =>
  Effect.succeed(
    handlers
      .handle("listAgreements", () => Customers.listAgreements)
      .handle("getEndUserTerms", () => Customers.getEndUserTerms)
  ))
