/**
 * A payment's reads guessed from what this process last read or wrote, and checked at
 * commit (docs/performance.md, "Reads guessed, checked at commit"; docs/decisions.md,
 * "A payment's reads guessed from this process's last sight of them").
 *
 * A quote and its execution each begin by reading ahead the rows they decide from
 * (./payment-reads.ts: the quote or the source account, the customer, the platform's
 * configuration, the accounts, their balances, the daily volume): one statement and one
 * round trip before the work can start. When this process last read or wrote every one
 * of those rows (the payer's previous payment did), the attempt runs on those values
 * instead, sends nothing to read them, and its last statement checks them in SQL
 * (`payments_reads_are`, migration `23_guessed_reads_check`): each row, read in the
 * transaction's snapshot, must be exactly the one guessed, or the statement raises
 * SQLSTATE `PC002` (`READS_REFUSED`), the transaction is rolled back (its COMMIT, queued
 * behind that statement, answers ROLLBACK) and the unit of work runs again reading the
 * rows, without guessing. So a guess is never an answer: the attempt commits only if
 * every row it decided from is the one its snapshot holds, which is what a read at its
 * start would have returned; a guess that is wrong costs an attempt, never a result.
 *
 * What makes the check the same as a read at the attempt's start:
 * - One snapshot: the attempt is one SERIALIZABLE (or, on PGlite, serial) transaction;
 *   the check reads the rows the read ahead would have read, by the same index lookups,
 *   so it also takes the same predicate locks (SERIALIZABLE tracks a read wherever in the
 *   transaction it happens).
 * - The attempt's own writes: a statement does not see its own writes, so writes in the
 *   check's statement cannot make a row look as guessed; a write sent before it (by a
 *   statement of its own) could, so the check also requires that the transaction has
 *   written nothing yet (`txid_current_if_assigned() is null`: a transaction gets its id
 *   at its first write, a savepoint's included). An attempt that wrote before the check
 *   fails it, and runs again without guessing.
 * - An attempt that ends without a last statement (a refusal in plain code, such as
 *   insufficient funds decided on a guessed balance) was never checked: the unit of work
 *   runs it again without guessing (./store.ts), so a refusal too is only ever answered
 *   from rows read.
 *
 * What was seen is the store's (several processes on one database each keep their own,
 * and each one's guesses are checked the same way); it is bounded (first in, first out), and a
 * process whose guesses keep failing (another process moving the same accounts) stops
 * guessing for a while (`Seen.allows`).
 */
import { BoundedMemo } from "../../lib/bounded-memo.js"

/** A statement (./pending.ts `PendingStatement`, which this module cannot import: pending.ts imports it). */
export interface CheckStatement {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

/** A document row as this process last saw it, with the columns the read ahead starts from. */
export interface SeenRow {
  /** The document's text as the database prints it (`doc::text`); null: no such row. */
  readonly text: string | null
  readonly customerId?: string | null
  readonly currency?: string | null
  readonly sourceId?: string | null
  readonly destinationId?: string | null
}

/** How many quotes, other rows, balances and volumes a store keeps at most. */
const QUOTES_SEEN = 4_096
const ROWS_SEEN = 8_192
const NUMBERS_SEEN = 8_192

export const seenRowKey = (table: string, platformId: string, id: string): string => `${table}\u0000${platformId}\u0000${id}`
export const seenBalanceKey = (platformId: string, account: string): string => `${platformId}\u0000${account}`
export const seenVolumeKey = (platformId: string, customerKey: string, currency: string): string =>
  `${platformId}\u0000${customerKey}\u0000${currency}`

/** A daily volume as last seen: the sum from `since`. */
export interface SeenVolume {
  readonly since: number
  readonly volume: number
}

const BUDGET = 16
const REFUSED_COST = 8

/**
 * A store's last sight of the rows a payment reads (one per store: its database's rows),
 * each a guess until checked. Quotes apart from the other rows: a quote is read once, by
 * its execution, and should not push the accounts and customers out.
 */
export class Seen {
  readonly quotes = new BoundedMemo<string, SeenRow>(QUOTES_SEEN)
  readonly rows = new BoundedMemo<string, SeenRow>(ROWS_SEEN)
  readonly balances = new BoundedMemo<string, number>(NUMBERS_SEEN)
  readonly volumes = new BoundedMemo<string, SeenVolume>(NUMBERS_SEEN)
  /** See `allows`. */
  #budget = BUDGET

  row(table: string, platformId: string, id: string): SeenRow | undefined {
    return (table === "quotes" ? this.quotes : this.rows).get(seenRowKey(table, platformId, id))
  }

  rememberRow(table: string, platformId: string, id: string, row: SeenRow): void {
    ;(table === "quotes" ? this.quotes : this.rows).set(seenRowKey(table, platformId, id), row)
  }

  /** Forgets what the store saw of the rows `guessed` names (they were not the snapshot's). */
  forget(guessed: GuessedReads): void {
    for (const g of guessed.items) {
      if (g.kind === "row") (g.table === "quotes" ? this.quotes : this.rows).delete(seenRowKey(g.table, g.platformId, g.id))
      else if (g.kind === "balance") this.balances.delete(seenBalanceKey(g.platformId, g.account))
      else this.volumes.delete(seenVolumeKey(g.platformId, g.customerKey, g.currency))
    }
  }

  /**
   * Whether the store guesses now. Each guess refused costs `REFUSED_COST`, each read
   * ahead (a guess confirmed, or rows read) earns one back, up to `BUDGET`: a store whose
   * guesses keep failing (another process moves the same accounts between this one's
   * payments) reads instead, and tries again after about `REFUSED_COST` reads per refusal.
   */
  allows(): boolean {
    return this.#budget > 0
  }

  earned(): void {
    if (this.#budget < BUDGET) this.#budget++
  }

  refused(guessed: GuessedReads): void {
    this.forget(guessed)
    this.#budget = Math.max(-4 * REFUSED_COST, this.#budget - REFUSED_COST)
  }
}

/** One row an attempt ran on without reading it. */
export type Guessed =
  | { readonly kind: "row"; readonly table: string; readonly platformId: string; readonly id: string; readonly text: string | null }
  | { readonly kind: "balance"; readonly platformId: string; readonly account: string; readonly balance: number }
  | {
    readonly kind: "volume"
    readonly platformId: string
    readonly customerKey: string
    readonly currency: string
    readonly since: number
    readonly volume: number
  }

/** The rows an attempt guessed, and whether the database confirmed them. */
export class GuessedReads {
  readonly items: Array<Guessed> = []
  /** A statement holding the check was taken to be sent: its outcome, not a rerun, settles the attempt. */
  carried = false
  /** A statement holding the check succeeded: the guesses were the rows of the snapshot. */
  checked = false
  /** The statement that checks them (`checkStatement`). */
  statement(): CheckStatement {
    return checkStatement(this)
  }
}

/** The check's SQL for one guess, its parameters pushed on `params`. */
const itemSql = (g: Guessed, params: Array<unknown>): string => {
  const p = (value: unknown) => {
    params.push(value)
    return `$${params.length}`
  }
  switch (g.kind) {
    case "row":
      return g.table === "platform_configs"
        ? `(select d.doc::text from platform_configs d where d.platform_id = ${p(g.platformId)}) is not distinct from ${p(g.text)}::text`
        : `(select d.doc::text from ${g.table} d where d.platform_id = ${p(g.platformId)} and d.id = ${p(g.id)}) is not distinct from ${p(g.text)}::text`
    case "balance":
      return `coalesce((select b.balance from ledger_balances b where b.platform_id = ${p(g.platformId)} and b.account = ${p(g.account)}), 0) = ${
        p(String(g.balance))
      }::bigint`
    case "volume":
      return `(select coalesce(sum(v.amount), 0) from sent_volumes v where v.platform_id = ${p(g.platformId)} and v.customer_key = ${
        p(g.customerKey)
      } and v.currency = ${p(g.currency)} and v.day_ms >= ${p(String(g.since))}::bigint) = ${p(String(g.volume))}::bigint`
  }
}

/** The check's texts, per shape of guesses (which kinds and tables, in order): a few per process. */
const checkTexts = new BoundedMemo<string, string>(256)
const shapeOf = (g: Guessed): string => g.kind === "row" ? g.table : g.kind

/**
 * The statement that checks `guessed` (see the module's comment): one row, `reads_ok`, or
 * SQLSTATE `PC002`. Its text depends only on the guesses' shape, so it is prepared once.
 */
export const checkStatement = (guessed: GuessedReads): CheckStatement => {
  const params: Array<unknown> = []
  const parts = guessed.items.map((g) => itemSql(g, params))
  const key = guessed.items.map(shapeOf).join(",")
  let text = checkTexts.get(key)
  if (text === undefined) {
    text = `select payments_reads_are(txid_current_if_assigned() is null and ${parts.join("\n  and ")}) as reads_ok`
    checkTexts.set(key, text)
  }
  return { text, params }
}

/** Ends an attempt whose guessed reads the database refuted; the unit of work runs again, reading them. */
export class StaleGuessedReads extends Error {
  constructor() {
    super("A row this attempt guessed is not the one its snapshot holds; it runs again, reading the rows")
  }
}
