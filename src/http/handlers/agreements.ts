import { Effect } from "effect"
import * as Customers from "../../operations/customers.js"
import { implement } from "../concerns.js"
import { AgreementsGroup } from "../groups/agreements.js"

export const AgreementsHandlers = implement(AgreementsGroup, (handlers) =>
  Effect.succeed(
    handlers
      .handle("listAgreements", () => Customers.listAgreements)
      .handle("getEndUserTerms", () => Customers.getEndUserTerms)
  ))
