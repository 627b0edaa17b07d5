/**
 * The ledger accounts money moves between, and the journal entries a payment's moves
 * write. Internal accounts are ledger accounts under their own id; the rest are system
 * accounts, one per currency:
 *
 * - `system:world:<ccy>`: money outside the service (banks, wallets, UMA counterparties).
 *   Funding takes from it; payouts give to it. It goes negative as money comes in.
 * - `system:in_flight:<ccy>`: debited from a source, not yet settled, refunded or parked.
 * - `system:fx:<ccy>`: the conversion desk: takes the sending currency, gives the receiving one.
 * - `system:revenue:<ccy>`: the service's own fees.
 * - `system:suspense:<ccy>`: money of a payout whose refund failed (sandbox 007), held for review.
 * - `system:platform_fees:<ccy>`: the platforms' fees on their payments (`platformFees`).
 *
 * Every entry sums to zero per currency; the store refuses one that does not.
 */
import { Effect } from "effect"
import type { PaymentPlan } from "../../domain/transaction.js"
import { Ids } from "../../ports/ids.js"
import type { LedgerRejected, Posting, UnitOfWork } from "../../ports/store.js"
import { memoize } from "../../lib/bounded-memo.js"

/**
 * A system account's name per currency, built once: a payment names the same few system
 * accounts about ten times (its plan, each move's postings, the moved accounts), and a
 * template's result is a rope that every use as a map key flattens and hashes anew.
 * Bounded (a miss only builds the name again).
 */
const systemAccountNamed = (prefix: string): ((currency: string) => string) => memoize(1024, (currency: string) => `${prefix}${currency}`)

export const worldAccount = systemAccountNamed("system:world:")
export const inFlightAccount = systemAccountNamed("system:in_flight:")
export const fxAccount = systemAccountNamed("system:fx:")
export const revenueAccount = systemAccountNamed("system:revenue:")
export const suspenseAccount = systemAccountNamed("system:suspense:")
/** Platform fees collected on the platform's behalf (`platformFees` of its payments). */
export const platformFeeAccount = systemAccountNamed("system:platform_fees:")

/** The ledger moves of a payment, named as the journal records them. */
export type LedgerMove = "DEBIT" | "SETTLE" | "REFUND" | "PARK" | "RETURN"

/** The postings of one move of a payment's plan. */
export const postingsOf = (plan: PaymentPlan, move: LedgerMove): ReadonlyArray<Posting> => {
  const { debit, credit } = plan
  const inFlight = inFlightAccount(debit.currency)
  switch (move) {
    case "DEBIT":
      return [
        { account: debit.account, currency: debit.currency, amount: -debit.amount },
        { account: inFlight, currency: debit.currency, amount: debit.amount }
      ]
    case "REFUND":
      return [
        { account: inFlight, currency: debit.currency, amount: -debit.amount },
        { account: debit.account, currency: debit.currency, amount: debit.amount }
      ]
    case "PARK":
      return [
        { account: inFlight, currency: debit.currency, amount: -debit.amount },
        { account: suspenseAccount(debit.currency), currency: debit.currency, amount: debit.amount }
      ]
    case "SETTLE": {
      const feeTotal = plan.fees.reduce((sum, f) => sum + f.amount, 0)
      const converted = debit.amount - feeTotal
      const sending: Array<Posting> = [
        { account: inFlight, currency: debit.currency, amount: -debit.amount },
        ...plan.fees.filter((f) => f.amount > 0).map((f) => ({ account: f.account, currency: debit.currency, amount: f.amount }))
      ]
      if (debit.currency === credit.currency) {
        // Same currency: what is left after fees is exactly what the receiver gets.
        return [...sending, { account: credit.account, currency: credit.currency, amount: converted }]
      }
      return [
        ...sending,
        { account: fxAccount(debit.currency), currency: debit.currency, amount: converted },
        { account: fxAccount(credit.currency), currency: credit.currency, amount: -credit.amount },
        { account: credit.account, currency: credit.currency, amount: credit.amount }
      ]
    }
    case "RETURN":
      // The receiving bank sent the payment back: the sender gets the whole debit again.
      return [
        { account: worldAccount(debit.currency), currency: debit.currency, amount: -debit.amount },
        { account: debit.account, currency: debit.currency, amount: debit.amount }
      ]
  }
}

/** Writes one move of a payment as a journal entry (the Ids service by `Ids.use`: no generator, two moves per payment). */
export const postMove = (
  uow: UnitOfWork,
  platformId: string,
  transactionId: string,
  plan: PaymentPlan,
  move: LedgerMove,
  at: string
): Effect.Effect<void, LedgerRejected, Ids> =>
  Ids.use((ids) =>
    Effect.flatMap(ids.uuid, (uuid) =>
      uow.post({
        platformId,
        id: `Entry:${uuid}`,
        kind: move,
        transactionId,
        at,
        postings: postingsOf(plan, move).filter((p) => p.amount !== 0)
      })
    )
  )

/** Writes a free-standing entry (sandbox funding, incoming payments). */
export const postEntry = Effect.fnUntraced(function*(
  uow: UnitOfWork,
  platformId: string,
  kind: string,
  postings: ReadonlyArray<Posting>,
  at: string,
  transactionId?: string
): Effect.fn.Return<void, LedgerRejected, Ids> {
  const ids = yield* Ids
  yield* uow.post({ platformId, id: `Entry:${yield* ids.uuid}`, kind, transactionId, at, postings })
})
