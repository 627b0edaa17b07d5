import { Effect } from "effect"
import * as Accounts from "../../operations/money/accounts.js"
import * as Config from "../../operations/money/config.js"
import * as Quotes from "../../operations/money/quotes.js"
import * as Rates from "../../operations/money/rates.js"
import * as SandboxMoney from "../../operations/money/sandbox.js"
import * as Transactions from "../../operations/money/transactions.js"
import * as Transfers from "../../operations/money/transfers.js"
import { implement } from "../concerns.js"
import type { LaneRequest } from "../direct.js"
import { ExchangeRatesGroup, InternalAccountsGroup, PlatformConfigGroup, QuotesGroup, SandboxMoneyGroup, TransactionsGroup, TransfersGroup } from "../groups/money.js"
import { run } from "./run.js"
import { CurrentPlatform } from "../middleware.js"
import type { PlatformConfigUpdateRequest } from "../../domain/platform-config.js"
import { deliverDueWebhooks, withWebhookPublicKey } from "../../operations/webhooks.js"

export const InternalAccountsHandlers = implement(InternalAccountsGroup, (handlers) =>
  handlers
    .handle("listCustomerInternalAccounts", ({ query }) => run((p) => Accounts.listCustomerAccounts(p, query)))
    .handle("listPlatformInternalAccounts", ({ query }) => run((p) => Accounts.listPlatformAccounts(p, query))))

/**
 * PATCH /config: the change, then (outside the platform's clock and the request's
 * fiber) the delivery worker is started for the platform, so a new endpoint's TEST
 * webhook goes out at once without the answer waiting for it.
 */
const updateConfig = (payload: typeof PlatformConfigUpdateRequest.Type) =>
  Effect.flatMap(Effect.service(CurrentPlatform), (platform) =>
    run((p) => withWebhookPublicKey(p, Config.updateConfig(p, payload))).pipe(
      Effect.tap(() => payload.webhookEndpoint === undefined ? Effect.void : deliverDueWebhooks(platform, { replay: false, wait: false }))
    ))

export const PlatformConfigHandlers = implement(PlatformConfigGroup, (handlers) =>
  handlers
    .handle("getPlatformConfig", () => run((p) => withWebhookPublicKey(p, Config.materializedConfigOf(p))))
    .handle("updatePlatformConfig", ({ payload }) => updateConfig(payload))
    .handle("updatePlatformConfigAlias", ({ payload }) => updateConfig(payload)))

export const ExchangeRatesHandlers = implement(ExchangeRatesGroup, (handlers) =>
  handlers.handle("getExchangeRates", ({ query }) =>
    run((p) =>
      Rates.getExchangeRates(p, {
        sourceCurrency: query.sourceCurrency,
        destinationCurrency: query.destinationCurrency,
        sendingAmount: query.sendingAmount
      }))))

const quoteEndpoints = QuotesGroup.endpoints

// The handlers the direct lane serves as well (src/http/direct-routes.ts): one function, both paths.

export const createQuote = ({ payload }: LaneRequest<typeof quoteEndpoints.createQuote>) => run((p) => Quotes.createQuote(p, payload))

export const executeQuote = ({ headers, params, payload }: LaneRequest<typeof quoteEndpoints.executeQuote>) =>
  run((p) => Quotes.executeQuote(p, params.quoteId, headers["service-wallet-signature"], payload?.scaFactor))

export const QuotesHandlers = implement(QuotesGroup, (handlers) =>
  handlers
    .handle("createQuote", createQuote)
    .handle("getQuote", ({ params }) => run((p) => Quotes.getQuote(p, params.quoteId)))
    .handle("executeQuote", executeQuote))

export const TransactionsHandlers = implement(TransactionsGroup, (handlers) =>
  handlers
    .handle("listTransactions", ({ query }) => run((p) => Transactions.listTransactions(p, query)))
    .handle("getTransaction", ({ params }) => run((p) => Transactions.getTransaction(p, params.transactionId)))
    .handle("cancelTransaction", ({ params }) => run((p) => Transactions.cancelTransaction(p, params.transactionId)))
    .handle("approveTransaction", ({ params, payload }) => run((p) => Transactions.approveTransaction(p, params.transactionId, payload ?? undefined)))
    .handle("rejectTransaction", ({ params, payload }) => run((p) => Transactions.rejectTransaction(p, params.transactionId, payload ?? undefined)))
    .handle("confirmReceiptDelivery", ({ params }) => run((p) => Transactions.confirmReceiptDelivery(p, params.transactionId, undefined))))

export const TransfersHandlers = implement(TransfersGroup, (handlers) =>
  handlers
    .handle("createTransferIn", ({ payload }) => run((p) => Transfers.transferIn(p, payload)))
    .handle("createTransferOut", ({ payload }) => run((p) => Transfers.transferOut(p, payload))))

export const SandboxMoneyHandlers = implement(SandboxMoneyGroup, (handlers) =>
  handlers
    .handle("sandboxFundInternalAccount", ({ params, payload }) => run((p) => Accounts.fundAccount(p, params.accountId, payload.amount)))
    .handle("sandboxSend", ({ payload }) => run((p) => SandboxMoney.sandboxSend(p, payload)))
    .handle("sandboxReceive", ({ payload }) => run((p) => SandboxMoney.sandboxUmaReceive(p, payload))))
