/**
 * The agent's money and account endpoints (docs/agents.md): the same operations the
 * platform calls (quotes, execution, transfers, transactions, internal and external
 * accounts), with the agent's customer fixed and its policy checked first
 * (rules/agents/policy.ts). A money movement is an AgentAction: under AUTO it runs at
 * once (APPROVED, with its transaction); under APPROVAL_REQUIRED its payment is created
 * and debited but held PENDING for the platform's approval (the action is
 * PENDING_APPROVAL and AGENT_ACTION.PENDING_APPROVAL is emitted), until
 * `POST /agents/{agentId}/actions/{actionId}/approve|reject` or
 * `POST /transactions/{transactionId}/approve|reject` decides it.
 */
import { Clock, Effect } from "effect"
import { AgentAction, type AgentActionType, type AgentPermission, type AgentTransferDetails } from "../domain/agent.js"
import type { CustomerExternalAccountCreateRequest } from "../domain/external-account.js"
import { badRequest, conflict, Error403, forbidden, invalidInput, notFound } from "../domain/errors.js"
import { currencyOf } from "../domain/money.js"
import type { Platform } from "../domain/platform.js"
import type { Quote, QuoteRequest } from "../domain/quote.js"
import type { Transaction, TransactionType, TransferInRequest, TransferOutRequest } from "../domain/transaction.js"
import type { AgentActionRecord, AgentRecord } from "../ports/agents.js"
import { Ids } from "../ports/ids.js"
import { Store, type QuoteRecord, type UnitOfWork } from "../ports/store.js"
import { addSpend, convertMinor, evaluate, type PolicyRequest } from "../rules/agents/policy.js"
import * as Rates from "../rules/money/rates.js"
import { requiresSca } from "../rules/sca.js"
import { decidedAction } from "./agent-actions.js"
import { actionOf, agentOf, currentAction, currentAgent, onCurrentAgent } from "./agents.js"
import { activeCustomer } from "./customers.js"
import { createCustomerExternalAccount, deleteExternalAccount, getExternalAccount, listExternalAccounts } from "./external-accounts.js"
import { listCustomerAccounts } from "./money/accounts.js"
import { transactionOf } from "./money/payments.js"
import { createQuote, executeIn, getQuote, quoteRecordOf } from "./money/quotes.js"
import { missingPullAmount, sweepAmount } from "./money/transfers.js"
import { decideHeldPayment, getTransaction, listTransactions, type TransactionListQuery } from "./money/transactions.js"
import { isoOf } from "./time.js"
import { emit } from "./transition.js"
import { missing, unknownReference } from "./not-found.js"

/** The 403 of a policy refusal, naming the rule. */
const policyRefusal = (reason: string, rule: string) => new Error403({ code: "FORBIDDEN", reason, details: { rule } })

/**
 * The agent, when its policy allows `permission` on these internal accounts; paused
 * agents can still read. A refusal is 403 FORBIDDEN with `details.rule`.
 */
const gate = Effect.fnUntraced(function*(platform: Platform, agentId: string, permission: AgentPermission, initiates: boolean, internalAccountIds: ReadonlyArray<string> = []) {
  const agent = yield* currentAgent(platform, agentId)
  const verdict = evaluate({ ...agent, isPaused: initiates && agent.isPaused }, { permission, internalAccountIds }, yield* Clock.currentTimeMillis)
  if (!verdict.ok) return yield* policyRefusal(verdict.reason, verdict.rule)
  return agent
})

// ---------------------------------------------------------------- reads

/** The platform's transaction list query, less the customer (the agent's own) and the card filters. */
export type AgentTransactionListQuery = Omit<TransactionListQuery, "customerId" | "platformCustomerId" | "type" | "cardId"> & {
  readonly type?: TransactionType | undefined
}

/** GET /agents/me/transactions: the customer's, newest first (VIEW_TRANSACTIONS). */
export const listMyTransactions = Effect.fnUntraced(function*(platform: Platform, agentId: string, q: AgentTransactionListQuery) {
  const agent = yield* gate(platform, agentId, "VIEW_TRANSACTIONS", false)
  return yield* listTransactions(platform, { ...q, customerId: agent.customerId })
})

/** GET /agents/me/transactions/{id}: another customer's is a 404 (VIEW_TRANSACTIONS). */
export const getMyTransaction = Effect.fnUntraced(function*(platform: Platform, agentId: string, id: string) {
  const agent = yield* gate(platform, agentId, "VIEW_TRANSACTIONS", false)
  const t = yield* getTransaction(platform, id)
  const owner = (t as { readonly customerId?: string | undefined }).customerId
  if (owner !== agent.customerId) return yield* notFound(`Transaction ${id} not found`, "TRANSACTION_NOT_FOUND")
  return t
})

/** GET /agents/me/internal-accounts: the customer's (VIEW_TRANSACTIONS). */
export const listMyInternalAccounts = Effect.fnUntraced(function*(
  platform: Platform,
  agentId: string,
  q: { readonly currency?: string | undefined; readonly type?: "INTERNAL_FIAT" | "INTERNAL_CRYPTO" | "EMBEDDED_WALLET" | undefined; readonly limit?: number | undefined; readonly cursor?: string | undefined }
) {
  const agent = yield* gate(platform, agentId, "VIEW_TRANSACTIONS", false)
  return yield* listCustomerAccounts(platform, { ...q, customerId: agent.customerId })
})

const CUSTOMER = { kind: "customer" } as const

const ownExternalAccount = Effect.fnUntraced(function*(platform: Platform, customerId: string, id: string) {
  const account = yield* getExternalAccount(platform, CUSTOMER, id)
  if (account.customerId !== customerId) return yield* missing("externalAccount", `External account ${id} not found`)
  return account
})

/** GET /agents/me/external-accounts (MANAGE_EXTERNAL_ACCOUNTS). */
export const listMyExternalAccounts = Effect.fnUntraced(function*(
  platform: Platform,
  agentId: string,
  q: { readonly currency?: string | undefined; readonly limit?: number | undefined; readonly cursor?: string | undefined }
) {
  const agent = yield* gate(platform, agentId, "MANAGE_EXTERNAL_ACCOUNTS", false)
  return yield* listExternalAccounts(platform, CUSTOMER, { ...q, customerId: agent.customerId })
})

/** GET /agents/me/external-accounts/{id} (MANAGE_EXTERNAL_ACCOUNTS). */
export const getMyExternalAccount = Effect.fnUntraced(function*(platform: Platform, agentId: string, id: string) {
  const agent = yield* gate(platform, agentId, "MANAGE_EXTERNAL_ACCOUNTS", false)
  return yield* ownExternalAccount(platform, agent.customerId, id)
})

/** POST /agents/me/external-accounts: for the agent's customer (`customerId` may be omitted; another is a 400). */
export const createMyExternalAccount = Effect.fnUntraced(function*(
  platform: Platform,
  agentId: string,
  req: Omit<CustomerExternalAccountCreateRequest, "customerId"> & { readonly customerId?: string | undefined }
) {
  const agent = yield* gate(platform, agentId, "MANAGE_EXTERNAL_ACCOUNTS", true)
  if (req.customerId !== undefined && req.customerId !== agent.customerId) {
    return yield* invalidInput("customerId must be the agent's customer (or omitted)", [{
      field: "customerId",
      constraint: "agentCustomer",
      message: `must be ${agent.customerId}, the customer the agent acts for`
    }])
  }
  return yield* createCustomerExternalAccount(platform, { ...req, customerId: agent.customerId })
})

/** DELETE /agents/me/external-accounts/{id} (MANAGE_EXTERNAL_ACCOUNTS). */
export const deleteMyExternalAccount = Effect.fnUntraced(function*(platform: Platform, agentId: string, id: string) {
  const agent = yield* gate(platform, agentId, "MANAGE_EXTERNAL_ACCOUNTS", true)
  yield* ownExternalAccount(platform, agent.customerId, id)
  yield* deleteExternalAccount(platform, CUSTOMER, id)
})

// ---------------------------------------------------------------- quotes

/**
 * The customer's account `id` (internal or external), or `absent`'s error: a 400 naming
 * `field` (`unknownAccount`), or a 404 where the operation lists one (`missingAccount`: transfers).
 */
const customerAccount = <E>(platform: Platform, customerId: string, id: string, field: string, absent: (field: string, id: string, customerId: string) => E) => Effect.gen(function*() {
  const store = yield* Store
  if (id.startsWith("InternalAccount:")) {
    const a = yield* store.internalAccounts.get(platform.id, id)
    if (a !== undefined && a.customerId === customerId) {
      if (a.type === "EMBEDDED_WALLET" && field.startsWith("source")) {
        return yield* invalidInput("An agent cannot move money out of an embedded wallet: only its owner's wallet signature can", [{
          field,
          constraint: "agentSource",
          message: "must not be an EMBEDDED_WALLET account"
        }])
      }
      return { kind: "internal" as const, id }
    }
  } else {
    const a = yield* store.externalAccounts.get(platform.id, id)
    if (a !== undefined && a.account.customerId === customerId) return { kind: "external" as const, id }
  }
  return yield* Effect.fail(absent(field, id, customerId))
})
const unknownAccount = (field: string, id: string, customerId: string) => unknownReference(field, id, `an account of the agent's customer ${customerId}`)
const missingAccount = (field: string, id: string, customerId: string) => missing("account", `${field}: account ${id} is not an account of the agent's customer ${customerId}`)

const noScaCustomer = Effect.fnUntraced(function*(platform: Platform, customerId: string) {
  const customer = (yield* Effect.mapError(activeCustomer(platform, customerId), () => forbidden(`The agent's customer ${customerId} no longer exists: the agent cannot move its money`))).customer
  if (requiresSca(customer.region)) {
    return yield* policyRefusal(
      `Customer ${customerId} is in a region whose provider mandates Strong Customer Authentication: each transfer needs the customer's own authorization, which an agent cannot give`,
      "strongCustomerAuthentication"
    )
  }
  return customer
})

/** The internal accounts of the customer a quote request moves money between (for the policy's restrictions). */
const quoteAccounts = Effect.fnUntraced(function*(platform: Platform, customerId: string, req: QuoteRequest) {
  const internal: Array<string> = []
  if (req.source.sourceType === "ACCOUNT") {
    const a = yield* customerAccount(platform, customerId, req.source.accountId, "source.accountId", unknownAccount)
    if (a.kind === "internal") internal.push(a.id)
  }
  if (req.destination.destinationType === "ACCOUNT") {
    const a = yield* customerAccount(platform, customerId, req.destination.accountId, "destination.accountId", unknownAccount)
    if (a.kind === "internal") internal.push(a.id)
  }
  return internal
})

/**
 * POST /agents/me/quotes (CREATE_QUOTES): a quote for the agent's customer between its
 * own accounts (or to a UMA address). `immediatelyExecute` is refused: execution is its
 * own action, under the policy (POST /agents/me/quotes/{id}/execute).
 */
export const createMyQuote = (platform: Platform, agentId: string, req: QuoteRequest) =>
  onCurrentAgent(platform, agentId, (uow, pre) =>
    Effect.gen(function*() {
      if (req.immediatelyExecute === true) {
        return yield* invalidInput("An agent executes a quote with POST /agents/me/quotes/{quoteId}/execute, under its policy", [{
          field: "immediatelyExecute",
          constraint: "agent",
          message: "must not be true on an agent's quote"
        }])
      }
      if (req.source.customerId !== undefined && req.source.customerId !== pre.customerId) {
        return yield* invalidInput("source.customerId must be the agent's customer (or omitted)", [{
          field: "source.customerId",
          constraint: "agentCustomer",
          message: `must be ${pre.customerId}`
        }])
      }
      const accounts = yield* quoteAccounts(platform, pre.customerId, req)
      const agent = yield* gate(platform, agentId, "CREATE_QUOTES", true, accounts)
      yield* noScaCustomer(platform, agent.customerId)
      const request: QuoteRequest = req.source.sourceType === "REALTIME_FUNDING" ? { ...req, source: { ...req.source, customerId: agent.customerId } } : req
      const quote = yield* createQuote(platform, request, { payout: false })
      yield* uow.putAgentRecord({ kind: "quote", platformId: platform.id, id: quote.id, agentId, customerId: agent.customerId, createdAt: quote.createdAt })
      return quote
    })
  )

/** A quote the agent made, or 404. */
const myQuote = Effect.fnUntraced(function*(platform: Platform, agentId: string, quoteId: string) {
  const store = yield* Store
  const link = yield* store.agents.get(platform.id, "quote", quoteId)
  if (link === undefined || link.agentId !== agentId) return yield* notFound(`Quote ${quoteId} not found`, "QUOTE_NOT_FOUND")
  return link
})

/** GET /agents/me/quotes/{quoteId}: a quote this agent created (VIEW_TRANSACTIONS is not needed: it is the agent's own). */
export const getMyQuote = Effect.fnUntraced(function*(platform: Platform, agentId: string, quoteId: string) {
  yield* currentAgent(platform, agentId)
  yield* myQuote(platform, agentId, quoteId)
  return yield* getQuote(platform, quoteId)
})

// ---------------------------------------------------------------- actions

/** An amount in minor units of `from` in minor units of `to`, at the current rate (rounded up). */
const converted = (amount: number, from: string, to: string, nowMs: number): number | undefined => {
  if (from === to) return amount
  const rate = Rates.rateAt(from, to, nowMs)
  const f = currencyOf(from)
  const t = currencyOf(to)
  return rate === undefined || f === undefined || t === undefined ? undefined : convertMinor(amount, f.decimals, t.decimals, rate.rate)
}

/**
 * Submits a money movement as an AgentAction, in `uow`: the policy decides (403 if it
 * refuses), the quote executes (held for approval under APPROVAL_REQUIRED), the spend
 * counts, and a held one is announced (AGENT_ACTION.PENDING_APPROVAL).
 */
const submit = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  agentId: string,
  type: AgentActionType,
  permission: AgentPermission,
  rec: QuoteRecord,
  internalAccountIds: ReadonlyArray<string>,
  transferDetails?: AgentTransferDetails
) {
  const ids = yield* Ids
  const agent = yield* currentAgent(platform, agentId)
  const customer = yield* noScaCustomer(platform, agent.customerId)
  const nowMs = yield* Clock.currentTimeMillis
  const q = rec.quote
  const sending = q.sendingCurrency.code
  const policyCurrency = agent.policy.spendingLimits.currency
  const amount = converted(q.totalSendingAmount, sending, policyCurrency, nowMs)
  if (amount === undefined) {
    return yield* badRequest("INVALID_CURRENCY", `No rate converts ${sending} into the policy currency ${policyCurrency} right now`)
  }
  const thresholdCurrency = agent.policy.approvalThresholds?.currency
  const request: PolicyRequest = {
    permission,
    internalAccountIds,
    amount,
    thresholdAmount: thresholdCurrency === undefined ? undefined : converted(q.totalSendingAmount, sending, thresholdCurrency, nowMs)
  }
  const verdict = evaluate(agent, request, nowMs)
  if (!verdict.ok) return yield* policyRefusal(verdict.reason, verdict.rule)
  const hold = verdict.mode === "APPROVAL_REQUIRED"
  yield* executeIn(uow, platform, rec, undefined, hold)
  const transaction: Transaction = (yield* transactionOf(platform, q.transactionId)).transaction
  const at = isoOf(nowMs)
  const action: AgentAction = {
    id: yield* ids.make("AgentAction"),
    agentId,
    customerId: agent.customerId,
    platformCustomerId: customer.platformCustomerId,
    status: hold ? "PENDING_APPROVAL" : "APPROVED",
    type,
    ...(type === "EXECUTE_QUOTE" ? { quote: (yield* quoteRecordOf(platform, q.id)).quote } : {}),
    ...(transferDetails === undefined ? {} : { transferDetails }),
    ...(hold ? {} : { transaction }),
    createdAt: at,
    updatedAt: at
  }
  const record: AgentActionRecord = {
    kind: "action",
    platformId: platform.id,
    id: action.id,
    agentId,
    customerId: agent.customerId,
    createdAt: at,
    action,
    policyAmount: amount,
    operation: type === "EXECUTE_QUOTE"
      ? { type, quoteId: q.id }
      : { type, sourceAccountId: transferDetails?.sourceAccountId ?? "", destinationAccountId: transferDetails?.destinationAccountId ?? "", amount: transferDetails?.amount ?? 0 },
    transactionId: transaction.id
  }
  yield* uow.putAgentRecord(record)
  yield* uow.putAgentRecord({ kind: "transaction", platformId: platform.id, id: transaction.id, agentId, customerId: agent.customerId, createdAt: at, actionId: action.id })
  const latest: AgentRecord = { ...agent, spend: addSpend(agent.spend, amount, nowMs) }
  yield* uow.putAgentRecord(latest)
  if (hold) yield* emit(uow, platform, "AGENT_ACTION.PENDING_APPROVAL", { timestamp: at, data: action })
  return action
})

/** POST /agents/me/quotes/{quoteId}/execute (EXECUTE_QUOTES): an AgentAction. */
export const executeMyQuote = (platform: Platform, agentId: string, quoteId: string) =>
  onCurrentAgent(platform, agentId, (uow, agent) =>
    Effect.gen(function*() {
      yield* myQuote(platform, agentId, quoteId)
      const rec = yield* quoteRecordOf(platform, quoteId)
      const accounts = [rec.plan.source, rec.plan.destination].flatMap((e) => e.kind === "INTERNAL" ? [e.accountId] : [])
      yield* gate(platform, agent.id, "EXECUTE_QUOTES", true, accounts)
      if (rec.quote.status !== "PENDING") {
        return yield* conflict("CONFLICT", `Quote ${quoteId} was already executed (status ${rec.quote.status}); create a new quote`)
      }
      return yield* submit(uow, platform, agentId, "EXECUTE_QUOTE", "EXECUTE_QUOTES", rec, accounts)
    })
  )


const sameCurrencyTransfer = Effect.fnUntraced(function*(platform: Platform, sourceId: string, destinationId: string) {
  const store = yield* Store
  const of = (id: string) =>
    id.startsWith("InternalAccount:")
      ? Effect.map(store.internalAccounts.get(platform.id, id), (a) => a?.currency)
      : Effect.map(store.externalAccounts.get(platform.id, id), (a) => a?.account.currency)
  const s = yield* of(sourceId)
  const d = yield* of(destinationId)
  if (s === undefined || d === undefined || s !== d) {
    return yield* badRequest("INVALID_CURRENCY", `A same-currency transfer cannot move ${s ?? "?"} into a ${d ?? "?"} account; use POST /agents/me/quotes`)
  }
  return s
})

/** A transfer as the deprecated /transfer-in and /transfer-out run it (a SENDING quote), submitted as an action. */
const transfer = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platform: Platform,
  agentId: string,
  type: "TRANSFER_IN" | "TRANSFER_OUT",
  source: string,
  destination: QuoteRequest["destination"] & { readonly destinationType: "ACCOUNT" },
  /** Left out on a transfer-out: the source account's whole balance. */
  given: number | undefined,
  extra: Partial<Pick<QuoteRequest, "remittanceInformation" | "purposeOfPayment">>
) {
  const agent = yield* currentAgent(platform, agentId)
  const s = yield* customerAccount(platform, agent.customerId, source, "source.accountId", missingAccount)
  const d = yield* customerAccount(platform, agent.customerId, destination.accountId, "destination.accountId", missingAccount)
  if (type === "TRANSFER_OUT" && (s.kind !== "internal" || d.kind !== "external")) {
    return yield* badRequest("INVALID_INPUT", "A transfer-out moves money from an internal account (source) to an external account (destination)")
  }
  if (type === "TRANSFER_IN" && (s.kind !== "external" || d.kind !== "internal")) {
    return yield* badRequest("INVALID_INPUT", "A transfer-in moves money from an external account (source) to an internal account (destination)")
  }
  const internal = [s, d].flatMap((a) => a.kind === "internal" ? [a.id] : [])
  yield* gate(platform, agentId, "CREATE_TRANSFERS", true, internal)
  const currency = yield* sameCurrencyTransfer(platform, source, destination.accountId)
  const amount = given ?? (yield* sweepAmount(platform, source))
  const quote = yield* createQuote(platform, {
    source: { sourceType: "ACCOUNT", accountId: source },
    destination,
    lockedCurrencySide: "SENDING",
    lockedCurrencyAmount: amount,
    ...extra
  }, { payout: type === "TRANSFER_OUT" })
  const rec = yield* quoteRecordOf(platform, quote.id)
  return yield* submit(uow, platform, agentId, type, "CREATE_TRANSFERS", rec, internal, {
    amount,
    currency,
    sourceAccountId: source,
    destinationAccountId: destination.accountId
  })
})

/** POST /agents/me/transfer-out (CREATE_TRANSFERS): an AgentAction (201). */
export const myTransferOut = (platform: Platform, agentId: string, req: TransferOutRequest) =>
  Effect.gen(function*() {
    const store = yield* Store
    return yield* store.transact((uow) =>
      transfer(uow, platform, agentId, "TRANSFER_OUT", req.source.accountId, {
        destinationType: "ACCOUNT",
        accountId: req.destination.accountId,
        ...(req.destination.paymentRail === undefined ? {} : { paymentRail: req.destination.paymentRail })
      }, req.amount, {
        ...(req.remittanceInformation === undefined ? {} : { remittanceInformation: req.remittanceInformation }),
        ...(req.purposeOfPayment === undefined ? {} : { purposeOfPayment: req.purposeOfPayment })
      })
    )
  })

/** POST /agents/me/transfer-in (CREATE_TRANSFERS): an AgentAction (201). */
export const myTransferIn = (platform: Platform, agentId: string, req: TransferInRequest) =>
  Effect.gen(function*() {
    const amount = req.amount
    if (amount === undefined) return yield* missingPullAmount()
    const store = yield* Store
    return yield* store.transact((uow) =>
      transfer(uow, platform, agentId, "TRANSFER_IN", req.source.accountId, { destinationType: "ACCOUNT", accountId: req.destination.accountId }, amount, {})
    )
  })

// ---------------------------------------------------------------- the platform's decision

const pendingAction = Effect.fnUntraced(function*(platform: Platform, agentId: string, actionId: string) {
  // The action first (a 404 names the last path parameter), then its agent (deleted: 404).
  const rec = yield* actionOf(platform, actionId, agentId)
  yield* agentOf(platform, agentId)
  if (rec.action.status !== "PENDING_APPROVAL") {
    return yield* conflict("CONFLICT", `Agent action ${actionId} is ${rec.action.status}, not PENDING_APPROVAL: it was already decided`, {
      details: { actionId, status: rec.action.status }
    })
  }
  return rec
})

const decide = (platform: Platform, agentId: string, actionId: string, decision: "APPROVE" | "REJECT", reason?: string) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        const rec = yield* pendingAction(platform, agentId, actionId)
        const txId = rec.transactionId
        if (txId === undefined) {
          const next = yield* decidedAction(uow, platform, rec, decision === "APPROVE" ? "FAILED" : "REJECTED", undefined, reason)
          return next.action
        }
        const payment = yield* transactionOf(platform, txId)
        yield* decideHeldPayment(uow, platform, payment, decision, reason)
        return yield* currentAction(platform, (yield* actionOf(platform, actionId, agentId)).action)
      })
    ))

/** POST /agents/{agentId}/actions/{actionId}/approve: the held payment proceeds; the action is APPROVED with it. */
export const approveAction = (platform: Platform, agentId: string, actionId: string) => decide(platform, agentId, actionId, "APPROVE")

/** POST /agents/{agentId}/actions/{actionId}/reject: the held payment fails and is refunded; the action is REJECTED. */
export const rejectAction = (platform: Platform, agentId: string, actionId: string, reason?: string) =>
  decide(platform, agentId, actionId, "REJECT", reason)
