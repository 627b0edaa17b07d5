/**
 * The money side of the API: internal accounts, platform configuration, exchange rates,
 * quotes, transactions, the deprecated transfers and the sandbox money simulations.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { TransactionWithCard } from "../../domain/card-transaction.js"
import { CurrencyCode, IdempotencyHeaders, IdText, ListResponse, QueryList } from "../../domain/common.js"
import { Error403, Error404, Error409, Error429 } from "../../domain/errors.js"
import { ExchangeRateListResponse } from "../../domain/exchange-rate.js"
import { InternalAccount, InternalAccountType, SandboxFundRequest } from "../../domain/internal-account.js"
import { PlatformConfig, PlatformConfigUpdateRequest } from "../../domain/platform-config.js"
import { ExecuteQuoteRequest, Quote, QuoteRequest } from "../../domain/quote.js"
import { SignedRequestHeaders } from "../../domain/wallet.js"
import {
  ApprovePaymentRequest,
  IncomingTransaction,
  RejectPaymentRequest,
  SandboxSendRequest,
  SandboxUmaReceiveRequest,
  Transaction,
  TransactionStatus,
  TransferInRequest,
  TransferOutRequest
} from "../../domain/transaction.js"
import {
  AccountIdentifierFilters,
  acts,
  apiGroup,
  byId,
  creates,
  DateRangeFilters,
  MoneyErrors,
  NotFoundOrConflict,
  page
} from "../endpoints.js"

export class InternalAccountsGroup extends apiGroup("internalAccounts", { title: "Internal Accounts" },
  HttpApiEndpoint.get("listCustomerInternalAccounts", "/customers/internal-accounts", {
    query: page({ currency: Schema.optionalKey(CurrencyCode), customerId: Schema.optionalKey(IdText), type: Schema.optionalKey(InternalAccountType) }),
    success: ListResponse(InternalAccount, "InternalAccountListResponse")
  }),
  HttpApiEndpoint.get("listPlatformInternalAccounts", "/platform/internal-accounts", {
    query: { currency: Schema.optionalKey(CurrencyCode), type: Schema.optionalKey(InternalAccountType) },
    success: Schema.Struct({ data: Schema.Array(InternalAccount) }).annotate({ identifier: "PlatformInternalAccountListResponse" })
  })
) {}

export class PlatformConfigGroup extends apiGroup("platformConfig", { title: "Platform Configuration", permission: "MANAGE" },
  HttpApiEndpoint.get("getPlatformConfig", "/config", { success: PlatformConfig }),
  HttpApiEndpoint.patch("updatePlatformConfig", "/config", { payload: PlatformConfigUpdateRequest, success: PlatformConfig }),
  HttpApiEndpoint.patch("updatePlatformConfigAlias", "/platform/config", { payload: PlatformConfigUpdateRequest, success: PlatformConfig })
    .annotate(OpenApi.Description, "The same settings as PATCH /config (SPEC.md names both paths).")
) {}

export class ExchangeRatesGroup extends apiGroup("exchangeRates", { title: "Exchange Rates" },
  HttpApiEndpoint.get("getExchangeRates", "/exchange-rates", {
    query: {
      sourceCurrency: Schema.optionalKey(CurrencyCode),
      destinationCurrency: Schema.optionalKey(QueryList(CurrencyCode, 50)),
      sendingAmount: Schema.optionalKey(
        Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 9_000_000_000_000_000 }))
      )
    },
    success: ExchangeRateListResponse
  })
) {}

const quoteParams = { quoteId: IdText }

export class QuotesGroup extends apiGroup("quotes", { title: "Cross-Currency Transfers", permission: "TRANSACT" },
  HttpApiEndpoint.post("createQuote", "/quotes", creates(QuoteRequest, Quote, [Error403, Error409, Error429])),
  HttpApiEndpoint.get("getQuote", "/quotes/:quoteId", byId(quoteParams, Quote)),
  HttpApiEndpoint.post("executeQuote", "/quotes/:quoteId/execute", {
    params: quoteParams,
    headers: { ...IdempotencyHeaders, "service-wallet-signature": SignedRequestHeaders["service-wallet-signature"] },
    // The body is optional (the reference's `requestBody.required: false`): an empty body decodes as null.
    payload: [ExecuteQuoteRequest, Schema.Null],
    success: Quote,
    error: MoneyErrors
  })
) {}

const transactionParams = { transactionId: IdText }

export class TransactionsGroup extends apiGroup("transactions", { title: "Transactions", permission: "TRANSACT" },
  HttpApiEndpoint.get("listTransactions", "/transactions", {
    query: page({
      customerId: Schema.optionalKey(IdText),
      platformCustomerId: Schema.optionalKey(IdText),
      ...AccountIdentifierFilters,
      status: Schema.optionalKey(TransactionStatus),
      type: Schema.optionalKey(Schema.Literals(["INCOMING", "OUTGOING", "CARD"])),
      reference: Schema.optionalKey(IdText),
      ...DateRangeFilters,
      cardId: Schema.optionalKey(IdText)
    }),
    success: ListResponse(TransactionWithCard, "TransactionListResponse")
  }),
  HttpApiEndpoint.get("getTransaction", "/transactions/:transactionId", byId(transactionParams, TransactionWithCard)),
  HttpApiEndpoint.post("cancelTransaction", "/transactions/:transactionId/cancel", {
    params: transactionParams,
    success: Transaction,
    error: NotFoundOrConflict
  }),
  // The bodies are optional (the reference's `requestBody.required: false`): an empty body decodes as null.
  HttpApiEndpoint.post("approveTransaction", "/transactions/:transactionId/approve", acts(transactionParams, [ApprovePaymentRequest, Schema.Null], Transaction, NotFoundOrConflict)),
  HttpApiEndpoint.post("rejectTransaction", "/transactions/:transactionId/reject", acts(transactionParams, [RejectPaymentRequest, Schema.Null], Transaction, NotFoundOrConflict)),
  HttpApiEndpoint.post("confirmReceiptDelivery", "/transactions/:transactionId/confirm", byId(transactionParams, Transaction))
) {}

export class TransfersGroup extends apiGroup("transfers", { title: "Same-Currency Transfers", permission: "TRANSACT" },
  HttpApiEndpoint.post("createTransferIn", "/transfer-in", creates(TransferInRequest, Transaction, MoneyErrors)).annotate(OpenApi.Deprecated, true),
  HttpApiEndpoint.post("createTransferOut", "/transfer-out", creates(TransferOutRequest, Transaction, MoneyErrors)).annotate(OpenApi.Deprecated, true)
) {}

export class SandboxMoneyGroup extends apiGroup("sandboxMoney", { title: "Sandbox (money)", permission: "MANAGE", sandboxOnly: true },
  HttpApiEndpoint.post("sandboxFundInternalAccount", "/sandbox/internal-accounts/:accountId/fund", {
    params: { accountId: IdText },
    payload: SandboxFundRequest,
    success: InternalAccount,
    error: [Error403, Error404]
  }),
  HttpApiEndpoint.post("sandboxSend", "/sandbox/send", { payload: SandboxSendRequest, success: Transaction, error: MoneyErrors }),
  HttpApiEndpoint.post("sandboxReceive", "/sandbox/uma/receive", {
    payload: SandboxUmaReceiveRequest,
    success: IncomingTransaction,
    error: [Error403, Error404]
  })
) {}
