import * as CardTransactions from "../../operations/card-transactions.js"
import { implement } from "../concerns.js"
import { CardSimulationsGroup } from "../groups/card-simulations.js"
import { run } from "./run.js"

export const CardSimulationsHandlers = implement(CardSimulationsGroup, (handlers) =>
  handlers
    .handle("sandboxSimulateCardAuthorization", ({ params, payload }) => run((p) => CardTransactions.simulateAuthorization(p, params.id, payload)))
    .handle("sandboxSimulateCardClearing", ({ params, payload }) => run((p) => CardTransactions.simulateClearing(p, params.id, payload)))
    .handle("sandboxSimulateCardReturn", ({ params, payload }) => run((p) => CardTransactions.simulateReturn(p, params.id, payload)))
    .handle("sandboxSimulateCardBalanceInquiry", ({ params, payload }) => run((p) => CardTransactions.simulateBalanceInquiry(p, params.id, payload)))
    .handle("sandboxSimulateCardCreditAuthorization", ({ params, payload }) => run((p) => CardTransactions.simulateCreditAuthorization(p, params.id, payload)))
    .handle("sandboxSimulateCardFinancialAuthorization", ({ params, payload }) => run((p) => CardTransactions.simulateFinancialAuthorization(p, params.id, payload)))
    .handle("sandboxSimulateCardFinancialCreditAuthorization", ({ params, payload }) => run((p) => CardTransactions.simulateFinancialCreditAuthorization(p, params.id, payload)))
    .handle("sandboxSimulateCardAuthorizationAdvice", ({ params, payload }) => run((p) => CardTransactions.simulateAuthorizationAdvice(p, params.id, payload)))
    .handle("sandboxSimulateCardCreditAuthorizationAdvice", ({ params, payload }) => run((p) => CardTransactions.simulateCreditAuthorizationAdvice(p, params.id, payload)))
    .handle("sandboxSimulateCardReturnReversal", ({ params, payload }) => run((p) => CardTransactions.simulateReturnReversal(p, params.id, payload))))
