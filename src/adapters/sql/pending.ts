/**
 * What the current attempt of a unit of work has decided but not yet sent (./store.ts
 * gives each attempt its own `Pending`, and sends what it holds before it commits):
 *
 * - `statements`: writes whose result nobody reads and which can break no constraint of
 *   ours (a journal entry, a quote, a transaction: ./money.ts). They are sent together,
 *   as one statement, just before the next statement of the unit of work, whatever it is:
 *   every read still sees every write made before it, and the writes at the end of a
 *   payment (its second journal entry, the transaction, the quote, the events) cost one
 *   round trip instead of four.
 * - `events`: the unit of work's events (./events.ts), written last, with the writes left
 *   pending, just before COMMIT (or before a statement that reads or removes events), so
 *   the platform's event lock is taken at the end of the transaction.
 * - `balances`: the internal accounts' balances this attempt has read or moved (their
 *   values as the attempt sees them). A SERIALIZABLE transaction reads one snapshot, so a
 *   balance read again is the one read before unless the attempt moved it, and every move
 *   returns the new balance: a read of balances the attempt knows asks nothing. Any other
 *   write that may touch balances (a reset, a snapshot's restore) forgets them.
 * - `reads`: rows read ahead by the attempt (./payment-reads.ts, `readAhead`), as the
 *   attempt's snapshot holds them: a quote, a customer, an account, the configuration,
 *   a daily volume. A repository's read of one of them asks nothing (`readAhead`'s
 *   `cachedDoc`). The same snapshot argument as for balances, with writes: a write the
 *   attempt defers forgets the rows of the table it writes (`transactions` also the
 *   volumes its trigger keeps), and any other write (a statement that is not a plain
 *   select, or one sent after `flushWrites`) forgets them all.
 *
 * Outside a unit of work there is none: a write goes at once.
 */
import { Context, Effect } from "effect"
import type { DomainEvent } from "../../ports/events.js"
import type { Query } from "./documents.js"

export interface PendingStatement {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
  /** The one row the statement writes, when the writer names it (`defer`: the same text may then wait beside it for another row). */
  readonly row?: string | undefined
}

/**
 * A read the attempt makes with its last statement, and what it concludes from the row
 * (./one-round-trip.ts: the platform's clock offset the run guessed, checked at commit
 * rather than with a statement of its own before the first read).
 */
export interface FinalCheck {
  readonly statement: PendingStatement
  readonly verdict: (row: Readonly<Record<string, unknown>> | undefined) => Effect.Effect<void>
}

export class Pending {
  readonly statements: Array<PendingStatement> = []
  readonly events: Array<DomainEvent> = []
  readonly balances = new Map<string, number>()
  /** `readKey` → the row's document as text, or null: the attempt read that there is none. */
  readonly reads = new Map<string, string | null>()
  finalCheck: FinalCheck | undefined = undefined
  /** Drops everything a failed nested unit of work left (its savepoint undid its writes). */
  forgetAll(): void {
    this.statements.length = 0
    this.events.length = 0
    this.balances.clear()
    this.reads.clear()
  }
  /** Forgets the rows read ahead from `table` (every row read ahead when the table is not known). */
  forgetReads(table: string | undefined): void {
    if (this.reads.size === 0) return
    if (table === undefined) {
      this.reads.clear()
      return
    }
    const prefix = `${table}\u0000`
    for (const key of this.reads.keys()) if (key.startsWith(prefix)) this.reads.delete(key)
    // The daily volumes are kept by a trigger on `transactions` (migration `6_sent_volumes`).
    if (table === "transactions") this.forgetReads("sent_volumes")
  }
}

export const CurrentPending = Context.Reference<Pending | undefined>("payments-service/adapters/sql/CurrentPending", {
  defaultValue: () => undefined
})

/** The key of a balance in `Pending.balances`. */
export const balanceKey = (platformId: string, account: string): string => `${platformId}\u0000${account}`

/** The key of a row read ahead in `Pending.reads`: its table first (what a write of the table forgets). */
export const readKey = (table: string, platformId: string, ...key: ReadonlyArray<string>): string =>
  [table, platformId, ...key].join("\u0000")

/** The table a write statement writes, when it names one plainly. */
const writtenTable = (text: string): string | undefined =>
  /^\s*(?:insert\s+into|update|delete\s+from)\s+([a-z_][a-z0-9_]*)/i.exec(text)?.[1]?.toLowerCase()

/**
 * Several statements as one: each becomes a data-modifying common table expression of a
 * `select` (PostgreSQL runs every one of them exactly once, to completion, on the same
 * snapshot), its parameters renumbered after those of the statements before it. The
 * statements must not write the same row twice (`defer` sends the pending ones first
 * when the same statement comes again).
 */
export const combine = (statements: ReadonlyArray<PendingStatement>, main?: PendingStatement): PendingStatement => {
  if (statements.length === 1 && main === undefined) return statements[0]!
  if (statements.length === 0 && main !== undefined) return main
  const params: Array<unknown> = []
  const renumbered = (s: PendingStatement) => {
    const offset = params.length
    params.push(...s.params)
    return s.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)
  }
  const parts = statements.map((s, i) => `w${i} as (${renumbered(s)})`)
  return { text: `with ${parts.join(",\n")}\n${main === undefined ? "select 1" : renumbered(main)}`, params }
}

/**
 * The pending part of the SQL store over `raw` (a read as the store sends it) and `plain`
 * (a statement sent as it is, any failure a defect; `exec` the same for a write): `query` sends
 * the pending writes before each statement; `defer` keeps a write for later (sends it at
 * once outside a unit of work); `flushWrites` sends the pending writes before a write;
 * `leading` puts them before a statement of the caller's; `flushAll` the
 * pending writes and then the events (`eventsStatement` renders them), in one statement.
 */
export const makePending = (
  raw: Query,
  plain: Query,
  eventsStatement: (events: ReadonlyArray<DomainEvent>) => PendingStatement
) => {
  const exec = (text: string, params: ReadonlyArray<unknown>): Effect.Effect<void> => Effect.asVoid(plain(text, params))
  const send = (statements: ReadonlyArray<PendingStatement>): Effect.Effect<void> => {
    if (statements.length === 0) return Effect.void
    const one = combine(statements)
    return exec(one.text, one.params)
  }
  /** Before a write (the callers' next statement writes): the pending writes sent, the rows read ahead forgotten. */
  const flushWrites: Effect.Effect<void> = CurrentPending.use((pending) => {
    if (pending === undefined) return Effect.void
    pending.forgetReads(undefined)
    return pending.statements.length === 0 ? Effect.void : send(pending.statements.splice(0))
  })
  /**
   * `main` with the pending writes before it, as one statement (`combine`): for a write
   * that reads none of the tables they write (a ledger move), whose result is read and
   * whose failure is the caller's to judge. Nothing read ahead is forgotten: the caller
   * keeps what it writes (a move, its balance).
   */
  const leading = (main: PendingStatement): Effect.Effect<PendingStatement> =>
    CurrentPending.use((pending) =>
      Effect.succeed(pending === undefined || pending.statements.length === 0 ? main : combine(pending.statements.splice(0), main))
    )
  const flushAll: Effect.Effect<void> = CurrentPending.use((pending) => {
    if (pending === undefined) return Effect.void
    const statements = pending.statements.splice(0)
    // The events' statement goes first: PostgreSQL runs a statement's data-modifying
    // CTEs that its select does not read last-written first, so it runs last and takes
    // the platform's event lock (held to COMMIT) after every other write of the statement.
    if (pending.events.length > 0) statements.unshift(eventsStatement(pending.events.splice(0)))
    const check = pending.finalCheck
    if (check === undefined) return send(statements)
    // The check is the statement's own select, after the writes (which it cannot see: one snapshot).
    pending.finalCheck = undefined
    const one = combine(statements, check.statement)
    return Effect.flatMap(plain<Record<string, unknown>>(one.text, one.params), (rows) => check.verdict(rows[0]))
  })
  /**
   * A statement that may write balances some other way than a move (anything but a
   * select, or a `with` of selects; or a snapshot's restore): the attempt forgets the
   * balances and the rows it knows.
   */
  const touchesBalances = (text: string): boolean =>
    text.includes("payments_restore_snapshot") ||
    !(/^\s*select\b/i.test(text) || (/^\s*with\b/i.test(text) && !/\b(insert|update|delete)\b/i.test(text)))
  const query: Query = <Row extends object>(text: string, params: ReadonlyArray<unknown>) =>
    CurrentPending.use((pending) => {
      if (pending === undefined) return raw<Row>(text, params)
      if (touchesBalances(text)) {
        pending.balances.clear()
        pending.forgetReads(undefined)
      }
      return pending.statements.length === 0
        ? raw<Row>(text, params)
        : Effect.andThen(send(pending.statements.splice(0)), raw<Row>(text, params))
    })
  const defer = (text: string, params: ReadonlyArray<unknown>, row?: string): Effect.Effect<void> =>
    CurrentPending.use((pending) => {
      if (pending === undefined) return exec(text, params)
      pending.forgetReads(writtenTable(text))
      // The same statement again may write the same row (unless both name the rows they
      // write, and those differ), and a statement that names its row writes it again:
      // the earlier ones go before it is kept (one statement's parts see one snapshot).
      const again = (s: PendingStatement) =>
        (row !== undefined && s.row === row) || (s.text === text && (row === undefined || s.row === undefined))
      if (pending.statements.some(again)) {
        const earlier = pending.statements.splice(0)
        pending.statements.push({ text, params, row })
        return send(earlier)
      }
      pending.statements.push({ text, params, row })
      return Effect.void
    })
  return { query, exec, defer, flushWrites, flushAll, leading }
}
