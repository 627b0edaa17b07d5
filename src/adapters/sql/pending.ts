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
import { Cause, Context, Effect } from "effect"
import type { DomainEvent } from "../../ports/events.js"
import type { Query } from "./documents.js"
import { BoundedMemo } from "../../lib/bounded-memo.js"
import { GuessedReads, type SeenVolume, StaleGuessedReads } from "./guessed-reads.js"
import { sqlStateOf } from "./direct.js"
import { isSqlError } from "effect/sql/SqlError"
import { READS_REFUSED } from "./migrations.js"

export interface PendingStatement {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
  /** The one row the statement writes, when the writer names it (`defer`: the same text may then wait beside it for another row). */
  readonly row?: string | undefined
  /**
   * A second data-modifying statement that writes what follows from the first one's rows
   * (a journal entry's account postings, a payment's daily volume: what triggers wrote
   * before migration `20_lighter_money_writes`), run in the same statement: it reads
   * the rows the first one returns as `{self}`, and its parameters are numbered after the
   * first one's (`params` holds both). The shape's key includes it (see `combine`).
   */
  readonly also?: string | undefined
}

/**
 * A check the attempt makes with its last statement (./one-round-trip.ts: the platform's
 * clock offset the run guessed, checked at commit rather than with a statement of its
 * own before the first read). The check is made in SQL: `statement` fails when it does
 * not hold, so COMMIT can go in the same write as the last statement (./direct.ts)
 * without anything in JavaScript reading the statement's rows first.
 */
export interface FinalCheck {
  readonly statement: PendingStatement
  /** The statement succeeded: the check held. */
  readonly held: () => void
  /** The statement failed with `error`: the check's own refusal as what the run does instead, or undefined for any other failure. */
  readonly refusal: (error: unknown) => Effect.Effect<never> | undefined
}

/** An attempt's last statement (its pending writes, its events, its final check), taken to be sent just before COMMIT. */
export interface LastStatement {
  readonly statement: PendingStatement
  readonly check: FinalCheck | undefined
}

/** The last statement's failure, as its check judges it (a refusal of the check), or as it is. */
export const lastStatementFailed = <E>(last: LastStatement, cause: Cause.Cause<E>): Effect.Effect<never, E> => {
  if (last.check !== undefined) {
    for (const r of cause.reasons) {
      const refusal = Cause.isDieReason(r) ? last.check.refusal(r.defect) : Cause.isFailReason(r) ? last.check.refusal(r.error) : undefined
      if (refusal !== undefined) return refusal
    }
  }
  return Effect.failCause(cause)
}

/** `sent`, the statement carrying `last`'s check: the check held when it succeeded, and its failure judged by the check. */
export const checkedBy = <E>(sent: Effect.Effect<unknown, E>, last: LastStatement): Effect.Effect<void, E> => {
  const check = last.check
  if (check === undefined) return Effect.asVoid(sent)
  return Effect.matchCauseEffect(sent, {
    onSuccess: () => Effect.sync(check.held),
    onFailure: (cause) => lastStatementFailed(last, cause)
  })
}

/** `text` with its parameters `$n` numbered `shift` higher (a statement placed after another's parameters). */
const renumbered = (text: string, shift: number): string => text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + shift}`)

export class Pending {
  constructor(
    /**
     * The turns (./turns.ts `turnKey`s) of the accounts the attempt moved (the SQL ledger's
     * moves add to it): when the attempt loses a serialization race, the unit of work reruns
     * holding their turns, so it loses no second race on them.
     */
    readonly moves: Set<string> = new Set(),
    /** The turns the attempt holds (undefined where there are no turns: PGlite). */
    readonly turns: ReadonlySet<string> | undefined = undefined,
    /** Whether the attempt may run on rows it guesses rather than reads (./guessed-reads.ts). */
    readonly guessing: boolean = false
  ) {}
  readonly statements: Array<PendingStatement> = []
  readonly events: Array<DomainEvent> = []
  readonly balances = new Map<string, number>()
  /** `readKey` → the row's document as text, or null: the attempt read that there is none. */
  readonly reads = new Map<string, string | null>()
  finalCheck: FinalCheck | undefined = undefined
  /**
   * The attempt sent a statement that may write (anything but a plain select, or a `with`
   * of selects), as far as the store's statements tell: it guesses no rows after that
   * (./payment-reads.ts), since their check refuses a transaction that wrote before it.
   */
  wrote = false
  /**
   * The rows the attempt guessed (./guessed-reads.ts), checked by its last statement. Kept
   * whatever else the attempt forgets: what it decided from them stands until checked.
   */
  guess: GuessedReads | undefined = undefined
  /** The daily volumes the attempt read or guessed (`seenVolumeKey` → as of its snapshot): what the store learns at commit. */
  readonly volumes = new Map<string, SeenVolume>()
  /** The payments it wrote that a daily volume may count (./money.ts `putTransaction`), in order. */
  readonly volumeWrites: Array<VolumeWrite> = []
  /** What the store learns of the rows the attempt wrote, once it committed. */
  readonly onCommit: Array<() => void> = []
  /** Drops everything a failed nested unit of work left (its savepoint undid its writes). */
  forgetAll(): void {
    this.statements.length = 0
    this.events.length = 0
    this.balances.clear()
    this.reads.clear()
    this.volumes.clear()
    this.volumeWrites.length = 0
    this.onCommit.length = 0
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
    // The daily volumes are kept with `transactions` (migration `6_sent_volumes`, ./money.ts `putTransaction`).
    if (table === "transactions") this.forgetReads("sent_volumes")
  }
}

/** A payment written by an attempt, as the daily volume of its customer and currency counts it (`counted`: the trigger's test). */
export interface VolumeWrite {
  readonly key: string
  readonly transactionId: string
  readonly day: number
  readonly amount: number
  readonly counted: boolean
}

/**
 * The check of an attempt's guessed rows (./guessed-reads.ts), as a final check of its
 * last statement; undefined when there is none to make: no guesses, or a statement took
 * it already (it goes once; no guess is added after it, ./payment-reads.ts).
 */
const guessCheck = (pending: Pending): FinalCheck | undefined => {
  const guess = pending.guess
  if (guess === undefined || guess.carried || guess.items.length === 0) return undefined
  guess.carried = true
  return {
    statement: guess.statement(),
    held: () => {
      guess.checked = true
    },
    refusal: (error) => isSqlError(error) && sqlStateOf(error) === READS_REFUSED ? Effect.die(new StaleGuessedReads()) : undefined
  }
}

/** Two one-row selects as one (`select * from (a), (b)`, b's parameters numbered after a's), kept per pair of texts. */
const joinedTexts = new Map<string, Map<string, string>>()
const JOINED_KEPT = 64
const joinSelects = (a: PendingStatement, b: PendingStatement): PendingStatement => {
  let byB = joinedTexts.get(a.text)
  if (byB === undefined) {
    if (joinedTexts.size >= JOINED_KEPT) joinedTexts.clear()
    byB = new Map()
    joinedTexts.set(a.text, byB)
  }
  let text = byB.get(b.text)
  if (text === undefined) {
    if (byB.size >= JOINED_KEPT) byB.clear()
    const shift = a.params.length
    text = `select * from (${a.text}) a, (${renumbered(b.text, shift)}) b`
    byB.set(b.text, text)
  }
  return { text, params: [...a.params, ...b.params] }
}

/** Both checks in one statement: each holds, or the first refusal counts. */
const bothChecks = (a: FinalCheck, b: FinalCheck): FinalCheck => ({
  statement: joinSelects(a.statement, b.statement),
  held: () => {
    a.held()
    b.held()
  },
  refusal: (error) => a.refusal(error) ?? b.refusal(error)
})

export const CurrentPending = Context.Reference<Pending | undefined>("payments-service/adapters/sql/CurrentPending", {
  defaultValue: () => undefined
})

/** The key of a balance in `Pending.balances`. */
export const balanceKey = (platformId: string, account: string): string => `${platformId}\u0000${account}`

/** The key of a row read ahead in `Pending.reads`: its table first (what a write of the table forgets). */
export const readKey = (table: string, platformId: string, ...key: ReadonlyArray<string>): string =>
  key.length === 1 ? `${table}\u0000${platformId}\u0000${key[0]}` : [table, platformId, ...key].join("\u0000")

/** The table a write statement writes, when it names one plainly. */
const writtenTable = (text: string): string | undefined =>
  /^\s*(?:insert\s+into|update|delete\s+from)\s+([a-z_][a-z0-9_]*)/i.exec(text)?.[1]?.toLowerCase()

/**
 * Whether a `with` statement writes (names insert, update or delete anywhere), kept per
 * text: that scan reads the whole text, and the `with` statements a payment sends are
 * built once per shape (./payment-reads.ts), so a lookup (whose hash the text keeps)
 * answers instead. At most `WITH_TEXTS_KEPT` texts are kept (the oldest forgotten first),
 * so texts built with values in them cannot grow it.
 */
const WITH_TEXTS_KEPT = 256
const withTexts = new BoundedMemo<string, boolean>(WITH_TEXTS_KEPT)
const scanWrites = (text: string): boolean => /\b(insert|update|delete)\b/i.test(text)
const withWrites = (text: string): boolean => withTexts.getOrCompute(text, scanWrites)

/**
 * A combined statement's shape (see `combine`), as a path down a tree: the parts' texts
 * and parameter counts in order (`parts`), then the main statement's (`mains`), if any. A
 * node keeps the text of the shape that ends there, once built.
 */
interface Shape {
  readonly parts: Map<string, Map<number, Shape>>
  readonly mains: Map<string, Map<number, Shape>>
  text: string | undefined
}
const newShape = (): Shape => ({ parts: new Map(), mains: new Map(), text: undefined })
/** At most this many shape nodes and joined keys are kept (then all forgotten at once): statements built with values in their text cannot grow the tree. */
const SHAPES_KEPT = 2048
let shapes = newShape()
let shapesKept = 0
let textsBuilt = 0

/**
 * A statement's text and its `also` joined, kept per pair: the joined string is then the
 * same string each time, whose hash it keeps (one built per call would be hashed whole,
 * a kilobyte or more, on every lookup). Forgotten with the shapes.
 */
let alsoKeys = new Map<string, Map<string, string>>()
const shapeKey = (s: PendingStatement): string => {
  if (s.also === undefined) return s.text
  let byAlso = alsoKeys.get(s.text)
  if (byAlso === undefined) {
    byAlso = new Map()
    alsoKeys.set(s.text, byAlso)
  }
  let key = byAlso.get(s.also)
  if (key === undefined) {
    key = `${s.text}\u0000${s.also}`
    byAlso.set(s.also, key)
    shapesKept++
  }
  return key
}

/** The node after `node` for statement `s` (made when new). */
const nextShape = (byText: Map<string, Map<number, Shape>>, s: PendingStatement): Shape => {
  const key = shapeKey(s)
  let byCount = byText.get(key)
  if (byCount === undefined) {
    byCount = new Map()
    byText.set(key, byCount)
  }
  let node = byCount.get(s.params.length)
  if (node === undefined) {
    node = newShape()
    byCount.set(s.params.length, node)
    shapesKept++
  }
  return node
}

/** How many combined texts were built (not found kept) so far: for tests, a shape is built once. */
export const combinedTextsBuilt = (): number => textsBuilt

/** The text of `statements` (and `main`) as one statement: see `combine`. */
const combinedText = (statements: ReadonlyArray<PendingStatement>, main: PendingStatement | undefined): string => {
  textsBuilt++
  let offset = 0
  const placed = (s: PendingStatement) => {
    const shift = offset
    offset += s.params.length
    return renumbered(s.text, shift)
  }
  const parts = statements.map((s, i) => {
    const shift = offset
    const part = `w${i} as (${placed(s)})`
    return s.also === undefined ? part : `${part},\nw${i}a as (${renumbered(s.also, shift).replaceAll("{self}", `w${i}`)})`
  })
  return `with ${parts.join(",\n")}\n${main === undefined ? "select 1" : placed(main)}`
}

/**
 * Several statements as one: each becomes a data-modifying common table expression of a
 * `select` (PostgreSQL runs every one of them exactly once, to completion, on the same
 * snapshot), its parameters renumbered after those of the statements before it. The
 * statements must not write the same row twice (`defer` sends the pending ones first
 * when the same statement comes again). The text depends only on the shape (the texts
 * and parameter counts, in order): it is built once per shape and kept.
 */
export const combine = (statements: ReadonlyArray<PendingStatement>, main?: PendingStatement): PendingStatement => {
  if (statements.length === 1 && main === undefined && statements[0]!.also === undefined) return statements[0]!
  if (statements.length === 0 && main !== undefined) return main
  if (shapesKept >= SHAPES_KEPT) {
    shapes = newShape()
    alsoKeys = new Map()
    shapesKept = 0
  }
  let node = shapes
  const params: Array<unknown> = []
  for (const s of statements) {
    node = nextShape(node.parts, s)
    for (const p of s.params) params.push(p)
  }
  if (main !== undefined) {
    node = nextShape(node.mains, main)
    for (const p of main.params) params.push(p)
  }
  node.text ??= combinedText(statements, main)
  return { text: node.text, params }
}

/**
 * A statement in a fiber's context at hand (./direct.ts `RunIn`: the caller's step read
 * the context, so the statement needs no step of its own to find its connection); any
 * failure a defect.
 */
export type QueryIn = <Row extends object>(
  context: Context.Context<never>,
  text: string,
  params: ReadonlyArray<unknown>
) => Effect.Effect<ReadonlyArray<Row>>

/**
 * The pending part of the SQL store over `rawIn` (a read as the store sends it) and `plainIn`
 * (a statement sent as it is, any failure a defect; `exec` the same for a write): `query` sends
 * the pending writes before each statement; `defer` keeps a write for later (sends it at
 * once outside a unit of work); `flushWrites` sends the pending writes before a write;
 * `leadingIn` puts them before a statement of the caller's; `flushAll` the
 * pending writes and then the events (`eventsStatement` renders them), in one statement.
 * Each reads the fiber's context once (one effect step) and does the rest in plain code.
 */
export const makePending = (
  rawIn: QueryIn,
  plainIn: QueryIn,
  eventsStatement: (events: ReadonlyArray<DomainEvent>) => PendingStatement
) => {
  const execIn = (context: Context.Context<never>, text: string, params: ReadonlyArray<unknown>): Effect.Effect<void> =>
    Effect.asVoid(plainIn(context, text, params))
  /**
   * `write` (a statement that may write) after the check of the rows the attempt guessed,
   * when no statement carried it yet (./guessed-reads.ts): the check refuses a transaction
   * that wrote before it, so it goes first, as a statement of its own (a write that must
   * go now, such as an idempotent request's key, would otherwise cost the attempt).
   */
  const afterGuessCheck = <A>(context: Context.Context<never>, pending: Pending | undefined, write: Effect.Effect<A>): Effect.Effect<A> => {
    if (pending === undefined) return write
    pending.wrote = true
    const check = guessCheck(pending)
    if (check === undefined) return write
    return Effect.andThen(checkedBy(execIn(context, check.statement.text, check.statement.params), { statement: check.statement, check }), write)
  }
  const exec = (text: string, params: ReadonlyArray<unknown>): Effect.Effect<void> =>
    Effect.contextWith((context: Context.Context<never>) => afterGuessCheck(context, Context.get(context, CurrentPending), execIn(context, text, params)))
  const sendIn = (context: Context.Context<never>, statements: ReadonlyArray<PendingStatement>): Effect.Effect<void> => {
    if (statements.length === 0) return Effect.void
    const one = combine(statements)
    return afterGuessCheck(context, Context.get(context, CurrentPending), execIn(context, one.text, one.params))
  }
  /** Before a write (the callers' next statement writes): the pending writes sent, the rows read ahead forgotten. */
  const flushWrites: Effect.Effect<void> = Effect.contextWith((context: Context.Context<never>) => {
    const pending = Context.get(context, CurrentPending)
    if (pending === undefined) return Effect.void
    pending.forgetReads(undefined)
    // The caller's write follows: the check goes first (with the pending writes, `sendIn`).
    return pending.statements.length === 0 ? afterGuessCheck(context, pending, Effect.void) : sendIn(context, pending.statements.splice(0))
  })
  /**
   * `main` with the pending writes before it, as one statement (`combine`): for a write
   * that reads none of the tables they write (a ledger move), whose result is read and
   * whose failure is the caller's to judge. Nothing read ahead is forgotten: the caller
   * keeps what it writes (a move, its balance). `pending` is the attempt's (the fiber's
   * `CurrentPending`), read by the caller's step.
   */
  const leadingIn = (pending: Pending | undefined, main: PendingStatement): PendingStatement => {
    if (pending === undefined) return main
    pending.wrote = true
    return pending.statements.length === 0 ? main : combine(pending.statements.splice(0), main)
  }
  /**
   * The attempt's pending writes and events, and its final check, taken as one statement
   * (undefined: nothing to send). The events' statement goes first: PostgreSQL runs a
   * statement's data-modifying CTEs that its select does not read last-written first, so
   * it runs last and takes the platform's event lock (held to COMMIT) after every other
   * write of the statement. The check is the statement's own select, after the writes
   * (which it cannot see: one snapshot).
   */
  const takeLast = (pending: Pending | undefined): LastStatement | undefined => {
    if (pending === undefined) return undefined
    const clock = pending.finalCheck
    const guessed = guessCheck(pending)
    const check = clock !== undefined && guessed !== undefined ? bothChecks(clock, guessed) : clock ?? guessed
    if (pending.statements.length === 0 && pending.events.length === 0 && check === undefined) return undefined
    const statements = pending.statements.splice(0)
    if (pending.events.length > 0) statements.unshift(eventsStatement(pending.events.splice(0)))
    pending.finalCheck = undefined
    return { statement: combine(statements, check?.statement), check }
  }
  /** Sends the attempt's pending writes, events and final check now, in one statement (`takeLast`). */
  const flushAll: Effect.Effect<void> = Effect.contextWith((context: Context.Context<never>) => {
    const last = takeLast(Context.get(context, CurrentPending))
    if (last === undefined) return Effect.void
    return checkedBy(execIn(context, last.statement.text, last.statement.params), last)
  })
  /**
   * A statement that may write balances some other way than a move (anything but a
   * select, or a `with` of selects; or a snapshot's restore): the attempt forgets the
   * balances and the rows it knows.
   */
  const touchesBalances = (text: string): boolean =>
    text.includes("payments_restore_snapshot") ||
    !(/^\s*select\b/i.test(text) || (/^\s*with\b/i.test(text) && !withWrites(text)))
  /** `query` in the fiber's context at hand. */
  const queryIn = <Row extends object>(context: Context.Context<never>, text: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Row>> => {
    const pending = Context.get(context, CurrentPending)
    if (pending === undefined) return rawIn<Row>(context, text, params)
    const writes = touchesBalances(text)
    if (writes) {
      pending.balances.clear()
      pending.forgetReads(undefined)
    }
    // A write goes after the check (with the pending writes, `sendIn`, or on its own).
    if (pending.statements.length > 0) return Effect.andThen(sendIn(context, pending.statements.splice(0)), rawIn<Row>(context, text, params))
    return writes ? afterGuessCheck(context, pending, rawIn<Row>(context, text, params)) : rawIn<Row>(context, text, params)
  }
  const query: Query = <Row extends object>(text: string, params: ReadonlyArray<unknown>) =>
    Effect.contextWith((context: Context.Context<never>) => queryIn<Row>(context, text, params))
  /**
   * Keeps a write in the attempt's `pending` for its next statement; what must go first
   * (see `defer`) is returned, to be sent before anything else (undefined: nothing).
   */
  const keep = (
    pending: Pending,
    text: string,
    params: ReadonlyArray<unknown>,
    row: string | undefined,
    also: string | undefined
  ): ReadonlyArray<PendingStatement> | undefined => {
    pending.forgetReads(writtenTable(text))
    // The same statement again may write the same row (unless both name the rows they
    // write, and those differ), and a statement that names its row writes it again:
    // the earlier ones go before it is kept (one statement's parts see one snapshot).
    const again = (s: PendingStatement) =>
      (row !== undefined && s.row === row) || (s.text === text && (row === undefined || s.row === undefined))
    const earlier = pending.statements.some(again) ? pending.statements.splice(0) : undefined
    pending.statements.push({ text, params, row, also })
    return earlier
  }
  /** `defer` in the fiber's context at hand (`pending` its `CurrentPending`). */
  const deferIn = (
    context: Context.Context<never>,
    pending: Pending | undefined,
    text: string,
    params: ReadonlyArray<unknown>,
    row?: string,
    also?: string
  ): Effect.Effect<void> => {
    if (pending === undefined) return also === undefined ? execIn(context, text, params) : sendIn(context, [{ text, params, also }])
    const earlier = keep(pending, text, params, row, also)
    return earlier === undefined ? Effect.void : sendIn(context, earlier)
  }
  const defer = (text: string, params: ReadonlyArray<unknown>, row?: string, also?: string): Effect.Effect<void> =>
    Effect.contextWith((context: Context.Context<never>) => deferIn(context, Context.get(context, CurrentPending), text, params, row, also))
  return { query, queryIn, exec, defer, deferIn, flushWrites, flushAll, takeLast, leadingIn }
}
