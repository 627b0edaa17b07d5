/**
 * Which internal accounts a payment's move announces as INTERNAL_ACCOUNT.BALANCE_UPDATED
 * (`accountsMovedBy`, src/operations/money/payments.ts): those whose balance the move
 * changed ("fired when the balance of an internal account changes", the reference), for
 * every move of the ledger, pulls from the outside world, cross-currency payments and
 * payouts to it.
 */
import { describe, expect, it } from "vitest"
import type { PaymentPlan } from "../../src/domain/transaction.js"
import { platformFeeAccount, revenueAccount, worldAccount } from "../../src/operations/money/ledger.js"
import { accountsMovedBy } from "../../src/operations/money/payments.js"

const PAYER = "InternalAccount:payer-usd"
const PAYEE = "InternalAccount:payee-eur"
const PAYEE_USD = "InternalAccount:payee-usd"

const planOf = (debit: string, credit: string, options: { readonly creditCurrency?: string; readonly fee?: number } = {}): PaymentPlan => ({
  debit: { account: debit, currency: "USD", amount: 1_000 },
  credit: { account: credit, currency: options.creditCurrency ?? "USD", amount: options.creditCurrency === undefined ? 1_000 - (options.fee ?? 0) : 900 },
  fees: [{ account: revenueAccount("USD"), amount: options.fee ?? 0 }, { account: platformFeeAccount("USD"), amount: 0 }],
  money: "NONE",
  outcome: "SUCCESS",
  steps: [],
  internalAccounts: [debit, credit].filter((a) => a.startsWith("InternalAccount:"))
})

describe("accountsMovedBy: the internal accounts a payment's move changed", () => {
  it("between two internal accounts (cross-currency): the payer on the debit, refund and return; the payee on the settlement; none on parking", () => {
    const plan = planOf(PAYER, PAYEE, { creditCurrency: "EUR", fee: 10 })
    expect(accountsMovedBy(plan, ["DEBIT"])).toEqual([PAYER])
    expect(accountsMovedBy(plan, ["SETTLE"])).toEqual([PAYEE])
    expect(accountsMovedBy(plan, ["REFUND"])).toEqual([PAYER])
    expect(accountsMovedBy(plan, ["RETURN"])).toEqual([PAYER])
    expect(accountsMovedBy(plan, ["PARK"])).toEqual([])
    // Two moves at once: each account their net changed, in the payment's order.
    expect(accountsMovedBy(plan, ["DEBIT", "SETTLE"])).toEqual([PAYER, PAYEE])
  })

  it("a payout to the outside world: the payer only, and nothing on its settlement", () => {
    const plan = planOf(PAYER, worldAccount("USD"), { fee: 10 })
    expect(plan.internalAccounts).toEqual([PAYER])
    expect(accountsMovedBy(plan, ["DEBIT"])).toEqual([PAYER])
    expect(accountsMovedBy(plan, ["SETTLE"])).toEqual([])
    expect(accountsMovedBy(plan, ["RETURN"])).toEqual([PAYER])
  })

  it("a pull from an external account (the outside world): the payee on the settlement only, nothing on the debit or its reversal", () => {
    const plan = { ...planOf(worldAccount("USD"), PAYEE_USD), pull: true }
    expect(accountsMovedBy(plan, ["DEBIT"])).toEqual([])
    expect(accountsMovedBy(plan, ["SETTLE"])).toEqual([PAYEE_USD])
    expect(accountsMovedBy(plan, ["REFUND"])).toEqual([])
  })

  it("a settlement whose fees take the whole debit leaves the payee's balance as it was: nothing to announce", () => {
    const plan = planOf(PAYER, PAYEE_USD, { fee: 1_000 })
    expect(accountsMovedBy(plan, ["SETTLE"])).toEqual([])
  })
})
