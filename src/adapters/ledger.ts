/**
 * The ledger rules every store applies to a journal entry before writing it, so memory,
 * PGlite and PostgreSQL refuse the same entries.
 */
import type { JournalEntry, LedgerRejected } from "../ports/store.js"

/** Internal accounts hold customers' and platforms' money: never below zero. */
export const isInternalAccount = (account: string): boolean => account.startsWith("InternalAccount:")

/** Why an entry is malformed on its own (before any balance is read), or undefined. */
export const entryProblem = (entry: JournalEntry): LedgerRejected["reason"] | undefined => {
  const sums = new Map<string, bigint>()
  for (const p of entry.postings) {
    if (!Number.isSafeInteger(p.amount)) return "OUT_OF_RANGE"
    sums.set(p.currency, (sums.get(p.currency) ?? 0n) + BigInt(p.amount))
  }
  for (const sum of sums.values()) if (sum !== 0n) return "UNBALANCED"
  return undefined
}

/**
 * The new balance of an account after a posting, or the reason it is refused: an
 * internal account below zero or outside the exact integer range.
 */
export const nextBalance = (account: string, balance: number, amount: number): number | LedgerRejected["reason"] => {
  const next = balance + amount
  // Only internal accounts are held to a balance: a system account's balance is the sum
  // of its postings (the SQL store keeps no row for it, so payments never contend on it).
  if (!isInternalAccount(account)) return next
  if (!Number.isSafeInteger(next)) return "OUT_OF_RANGE"
  if (next < 0) return "INSUFFICIENT_BALANCE"
  return next
}

/** The net amount per account of an entry (an account may appear in several postings). */
export const netByAccount = (entry: JournalEntry): ReadonlyMap<string, number> => {
  const out = new Map<string, number>()
  for (const p of entry.postings) out.set(p.account, (out.get(p.account) ?? 0) + p.amount)
  return out
}
