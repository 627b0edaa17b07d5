/**
 * Which internal accounts may fund a card (400 FUNDING_SOURCE_INELIGIBLE otherwise):
 * each source must be an account of the cardholder, ACTIVE, in one of the platform's
 * card-eligible currencies, and all of a card's sources in one currency (the card's:
 * derived from them at issue, fixed after). A list naming one account twice is a 400
 * INVALID_INPUT (the order is a priority: an account has one place in it).
 */
import { invalidInput, reject, type Rejection } from "../rejection.js"
import { fail, ok, type Result } from "../result.js"

/** What the rule needs to know of an internal account. */
export interface FundingAccount {
  readonly id: string
  /** The owning customer (null: the platform's own). */
  readonly customerId: string | null
  readonly status: string
  readonly currency: string
}

export type Ineligibility = "NOT_FOUND" | "NOT_CARDHOLDERS" | "NOT_ACTIVE" | "CURRENCY_NOT_ELIGIBLE" | "CURRENCY_MISMATCH"

const MESSAGES: Readonly<Record<Ineligibility, string>> = {
  NOT_FOUND: "is not an internal account of this platform",
  NOT_CARDHOLDERS: "does not belong to the cardholder",
  NOT_ACTIVE: "is not ACTIVE",
  CURRENCY_NOT_ELIGIBLE: "is not in a card-eligible currency",
  CURRENCY_MISMATCH: "is not in the card's currency"
}

/** Why one source cannot fund the card, or undefined when it can. */
export const ineligibilityOf = (
  account: FundingAccount | undefined,
  context: { readonly cardholderId: string; readonly eligibleCurrencies: ReadonlyArray<string>; readonly cardCurrency: string }
): Ineligibility | undefined => {
  if (account === undefined) return "NOT_FOUND"
  if (account.customerId !== context.cardholderId) return "NOT_CARDHOLDERS"
  if (account.status !== "ACTIVE") return "NOT_ACTIVE"
  if (!context.eligibleCurrencies.includes(account.currency)) return "CURRENCY_NOT_ELIGIBLE"
  if (account.currency !== context.cardCurrency) return "CURRENCY_MISMATCH"
  return undefined
}

/** The first repeated id's position, if any. */
const firstDuplicate = (ids: ReadonlyArray<string>): number | undefined => {
  const seen = new Set<string>()
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!
    if (seen.has(id)) return i
    seen.add(id)
  }
  return undefined
}

/**
 * Checks a list of funding sources; answers the card's currency. `cardCurrency` is the
 * card's (on update); on issue it is undefined and the first source's currency is the
 * card's. `accounts` are the listed ids' accounts as found (undefined: not found).
 */
export const checkFundingSources = (input: {
  readonly ids: ReadonlyArray<string>
  readonly accounts: ReadonlyMap<string, FundingAccount | undefined>
  readonly cardholderId: string
  readonly eligibleCurrencies: ReadonlyArray<string>
  readonly cardCurrency?: string | undefined
}): Result<{ readonly currency: string }, Rejection<"INVALID_INPUT" | "FUNDING_SOURCE_INELIGIBLE">> => {
  const dup = firstDuplicate(input.ids)
  if (dup !== undefined) {
    return fail(invalidInput(`fundingSources names ${input.ids[dup]} twice`, [{
      field: `fundingSources[${dup}]`,
      constraint: "uniqueItems",
      message: "must not repeat an internal account already listed"
    }]))
  }
  const first = input.ids[0] === undefined ? undefined : input.accounts.get(input.ids[0])
  const cardCurrency = input.cardCurrency ?? first?.currency ?? ""
  const problems: Array<{ readonly index: number; readonly id: string; readonly reason: Ineligibility }> = []
  input.ids.forEach((id, index) => {
    const reason = ineligibilityOf(input.accounts.get(id), {
      cardholderId: input.cardholderId,
      eligibleCurrencies: input.eligibleCurrencies,
      cardCurrency
    })
    if (reason !== undefined) problems.push({ index, id, reason })
  })
  if (problems.length > 0) {
    const first = problems[0]!
    return fail(reject("FUNDING_SOURCE_INELIGIBLE", `Funding source ${first.id} ${MESSAGES[first.reason]}`, {
        cardholderId: input.cardholderId,
        eligibleCurrencies: input.eligibleCurrencies,
        ...(cardCurrency === "" ? {} : { cardCurrency }),
        ineligible: problems.map((p) => ({ field: `fundingSources[${p.index}]`, id: p.id, reason: p.reason, message: MESSAGES[p.reason] }))
      }))
  }
  return ok({ currency: cardCurrency })
}

/** One funding-source binding: its own id (`CardFundingSource:<uuid>`) and the account it binds. */
export interface Binding {
  readonly id: string
  readonly internalAccountId: string
}

/** The accounts of a new list that have no binding yet (they need a new id each). */
export const unbound = (previous: ReadonlyArray<Binding>, accountIds: ReadonlyArray<string>): ReadonlyArray<string> => {
  const bound = new Set(previous.map((b) => b.internalAccountId))
  return accountIds.filter((id) => !bound.has(id))
}

/**
 * The bindings of a new funding-source list, in its order: an account already bound
 * keeps its binding (and id), an account bound anew takes the next of `newIds` (as many
 * as `unbound` counts); a binding whose account left the list is gone.
 */
export const rebind = (
  previous: ReadonlyArray<Binding>,
  accountIds: ReadonlyArray<string>,
  newIds: ReadonlyArray<string>
): ReadonlyArray<Binding> => {
  const kept = new Map(previous.map((b) => [b.internalAccountId, b.id]))
  let next = 0
  return accountIds.map((internalAccountId) => {
    const id = kept.get(internalAccountId) ?? newIds[next++]
    if (id === undefined) throw new Error("rebind: fewer new ids than unbound accounts")
    return { id, internalAccountId }
  })
}
