/**
 * The money path's reads in one statement (issue #20 item 4; docs/performance.md, "The
 * money reads in one statement"). A quote reads its source and destination accounts, the
 * source's owner, the platform's configuration, the source's balance and the owner's
 * daily volume; an execution reads its quote, its customer, the configuration, the two
 * accounts, their balances and the daily volume: one statement each, a round trip each.
 * `readAhead` reads all of them in one statement, at the start of the unit of work, and
 * keeps the rows in the attempt (./pending.ts `Pending.reads`, the balances in
 * `Pending.balances`); the repositories' reads of those rows (`cachedDoc`,
 * `cachedVolume`, used by ./money.ts and ./customers.ts) then answer from there.
 *
 * Why that is the answer the database would give: the unit of work is one SERIALIZABLE
 * transaction, which reads one snapshot; a row read again is the row read before unless
 * the attempt wrote it, and ./pending.ts forgets what the attempt writes. Each attempt
 * starts with nothing read ahead (a rerun reads again).
 *
 * Or guessed (`guessAhead`): when the store saw every one of those rows before (./guessed-reads.ts
 * `Seen`, fed by the reads here and by what attempts commit), the attempt runs on them and
 * reads nothing; its last statement checks each one in the transaction's snapshot, and a
 * row not as guessed refuses the commit (the unit of work runs again, reading). What the
 * store saw is a guess, never an answer.
 *
 * The statement reads the same rows, by the same index lookups, as the separate reads it
 * replaces (each lookup a scalar subquery on the table's key), so under SERIALIZABLE it
 * takes the same predicate locks: no payment conflicts with another it did not before.
 */
import { Effect } from "effect"
import type { PaymentReadAhead, PaymentReadsRepository } from "../../ports/money.js"
import { docOf, keptDocOf, type Query } from "./documents.js"
import { balanceKey, CurrentPending, type Pending, readKey } from "./pending.js"
import { type Guessed, GuessedReads, type Seen, seenBalanceKey, seenVolumeKey } from "./guessed-reads.js"

const DAY_MILLIS = 86_400_000

/** `read`, unless the attempt read the row ahead (`id` in `table`): then its document as read. */
export const cachedDoc = <T>(table: string, platformId: string, id: string, read: Effect.Effect<T | undefined>): Effect.Effect<T | undefined> =>
  CurrentPending.use((pending) => {
    const hit = pending?.reads.get(readKey(table, platformId, id))
    if (hit === undefined) return read
    if (hit === null) return Effect.succeed(undefined)
    // A quote or a payment is read once or twice in its life: parsed, not kept (`keptDocOf`).
    return Effect.succeed(table === "quotes" || table === "transactions" ? docOf<T>({ doc: hit }) : keptDocOf<T>(hit))
  })

/** `read`, unless the attempt read this daily volume ahead. */
export const cachedVolume = (
  platformId: string,
  customerKey: string,
  currency: string,
  since: number,
  read: Effect.Effect<number>
): Effect.Effect<number> =>
  CurrentPending.use((pending) => {
    const hit = pending?.reads.get(readKey("sent_volumes", platformId, customerKey, currency, String(since)))
    return hit === undefined || hit === null ? read : Effect.succeed(Number(hit))
  })

/** The row of `readAhead`'s statement: the parameters of the reads (`spec`), then each row read (null: absent, or not asked). */
interface AheadRow {
  readonly quote: string | null
  readonly customer_id: string | null
  readonly currency: string | null
  readonly source_id: string | null
  readonly destination_id: string | null
  readonly customer: string | null
  readonly config: string | null
  readonly source_internal: string | null
  readonly source_external: string | null
  readonly destination_internal: string | null
  readonly destination_external: string | null
  readonly source_balance: string | null
  readonly destination_balance: string | null
  readonly volume: string | null
}

/** Which kind of account a side of the payment names: one kind, none (no account id, or an id of neither kind), or not known yet. */
export type Side = "internal" | "external" | "none" | "any"

/** The kind of account `id` names. */
const sideOf = (id: string | null | undefined): Exclude<Side, "any"> =>
  id?.startsWith("InternalAccount:") === true ? "internal" : id?.startsWith("ExternalAccount:") === true ? "external" : "none"

/** Whether a statement whose side is `side` reads that side's account from `kind`'s table. */
const reads = (side: Side, kind: "internal" | "external"): boolean => side === kind || side === "any"

/**
 * The kinds of account a quote names, as this store last saw the quote (./guessed-reads.ts
 * `Seen.quotes`: written by ./money.ts `putQuote` once committed, or read ahead), which
 * decides which text its execution's read ahead sends; both kinds when not seen. A hint
 * only: the statement returns the quote's account ids, and an account the text did not
 * read is not kept (its repository reads it from the database), so a hint that is wrong
 * (a quote another process rewrote) costs a round trip, never an answer.
 */
const quoteSidesOf = (seen: Seen, platformId: string, quoteId: string): readonly [Side, Side] => {
  const quote = seen.row("quotes", platformId, quoteId)
  return quote === undefined || quote.text === null || quote.sourceId === undefined || quote.destinationId === undefined
    ? ["any", "any"]
    : [sideOf(quote.sourceId), sideOf(quote.destinationId)]
}

type Start = "quotes" | "internal_accounts" | "external_accounts"

/**
 * The one row of the reads' parameters (`spec`: the quote's document, the customer, the
 * sending currency, the source and destination account ids), from the quote (`$2` its
 * id) or from the source account (`$2`, in `table`, its document read with it) and the
 * destination (`$3`).
 */
const specText = (table: Start): string =>
  table === "quotes"
    ? `select q.doc as quote_doc, q.customer_id, q.currency, q.source_id, q.destination_id, null::text as source_doc
        from quotes q where q.platform_id = $1 and q.id = $2`
    : `select null::json as quote_doc, o.customer_id, o.currency, $2::text as source_id, $3::text as destination_id, o.doc::text as source_doc
        from ${table} o where o.platform_id = $1 and o.id = $2`

/** The table the reads start from (see `specText`), or undefined: an id of neither kind names no account. */
const startOf = (wants: PaymentReadAhead): Start | undefined =>
  wants.kind === "quote"
    ? "quotes"
    : wants.sourceAccountId.startsWith("InternalAccount:")
    ? "internal_accounts"
    : wants.sourceAccountId.startsWith("ExternalAccount:")
    ? "external_accounts"
    : undefined

/** What a text reads: where it starts, each side's kind of account, the daily volume's parameter (when it is read). */
export interface Shape {
  readonly table: Start
  readonly source: Side
  readonly destination: Side
  readonly since: string | undefined
}

/**
 * The text of `readAheadStatement`: one row (none when the quote or the source account
 * is absent), each read a scalar subquery on its table's key, asked only for an id of its
 * kind (a `case` arm runs its subquery only when taken). One row of columns rather than
 * a row per read: this shape plans in about four fifths of the time of a union of one
 * row per read (PGlite planned every statement it ran until its client kept them
 * prepared, ./pglite.ts; both databases now plan it a few times per connection).
 *
 * One text per combination of the payment's kinds of account (`Shape`): a text has the
 * subqueries of its sides' kinds only, since PostgreSQL sets up every subquery of a plan
 * at each execution, taken or not (docs/performance.md, "The database's work per
 * payment"). A new quote's source account is read by the row the reads start from (its
 * document with its customer and currency), not looked up a second time. Each text reads,
 * for the payment it is sent for, exactly the rows the one text of every arm read (an
 * arm not taken reads nothing), so under SERIALIZABLE it takes the same predicate locks.
 */
const readAheadText = ({ destination, since, source, table }: Shape): string => {
  const isKind = (column: string, kind: "internal" | "external") =>
    `s.${column} like '${kind === "internal" ? "InternalAccount" : "ExternalAccount"}:%'`
  const account = (side: Side, kind: "internal" | "external", column: string) => {
    if (!reads(side, kind)) return "null::text"
    // The source account the reads start from: read already, with the spec.
    if (column === "source_id" && table === `${kind}_accounts`) return "s.source_doc"
    return `case when ${isKind(column, kind)} then (select a.doc::text from ${kind}_accounts a where a.platform_id = $1 and a.id = s.${column}) end`
  }
  const balance = (side: Side, column: string) =>
    reads(side, "internal")
      ? `case when ${isKind(column, "internal")} then (select b.balance::text from ledger_balances b where b.platform_id = $1 and b.account = s.${column}) end`
      : "null::text"
  return `with s as materialized (${specText(table)})
    select s.quote_doc::text as quote, s.customer_id, s.currency, s.source_id, s.destination_id,
      (select c.doc::text from customers c where c.platform_id = $1 and c.id = s.customer_id) as customer,
      (select c.doc::text from platform_configs c where c.platform_id = $1) as config,
      ${account(source, "internal", "source_id")} as source_internal,
      ${account(source, "external", "source_id")} as source_external,
      ${account(destination, "internal", "destination_id")} as destination_internal,
      ${account(destination, "external", "destination_id")} as destination_external,
      ${balance(source, "source_id")} as source_balance,
      ${
    // An execution moves both accounts (their balances are announced); a quote reads the source's only.
    table === "quotes" ? balance(destination, "destination_id") : "null::text"} as destination_balance,
      ${
    since !== undefined
      ? `case when s.currency is not null then (select coalesce(sum(v.amount), 0)::text from sent_volumes v
          where v.platform_id = $1 and v.customer_key = coalesce(s.customer_id, '') and v.currency = s.currency and v.day_ms >= ${since}::bigint) end`
      : "null::text"
  } as volume
    from s`
}

/** The statement's texts, built once each (per `Shape`). */
const readAheadTexts = new Map<string, string>()

/** The statement of `readAhead` (see `readAheadText`) and what its text reads, or undefined when it would read nothing. */
export const readAheadStatement = (
  seen: Seen,
  platformId: string,
  wants: PaymentReadAhead
): { readonly text: string; readonly params: ReadonlyArray<unknown>; readonly shape: Shape } | undefined => {
  const table = startOf(wants)
  if (table === undefined) return undefined
  const params: Array<unknown> = wants.kind === "quote"
    ? [platformId, wants.quoteId]
    : [platformId, wants.sourceAccountId, wants.destinationAccountId ?? null]
  // The daily volume from a day's start is one row per day (./money.ts `sentVolume`).
  const volume = wants.volumeSince % DAY_MILLIS === 0
  if (volume) params.push(wants.volumeSince)
  // A new quote names its accounts; an execution's quote, when this store saw it, by a hint.
  const [source, destination] = wants.kind === "quote"
    ? quoteSidesOf(seen, platformId, wants.quoteId)
    : [sideOf(wants.sourceAccountId), sideOf(wants.destinationAccountId)]
  const shape: Shape = { table, source, destination, since: volume ? `$${params.length}` : undefined }
  const key = `${table}:${source}:${destination}:${shape.since ?? ""}`
  let text = readAheadTexts.get(key)
  if (text === undefined) {
    text = readAheadText(shape)
    readAheadTexts.set(key, text)
  }
  return { text, params, shape }
}

/** A bigint column read as text, as an exact number. */
const exactNumber = (text: string): number => {
  const n = Number(text)
  if (!Number.isSafeInteger(n)) throw new Error(`a stored amount is not an exact integer: ${text}`)
  return n
}

/**
 * What `readAhead` would read, guessed from what the store last saw of each row
 * (./guessed-reads.ts), kept in the attempt as a read's rows are, each guess noted for the
 * check at commit; false (nothing kept) when the store has not seen one of them.
 */
const guessAhead = (seen: Seen, pending: Pending, platformId: string, wants: PaymentReadAhead): boolean => {
  const table = startOf(wants)
  if (table === undefined) return false
  const start = wants.kind === "quote" ? seen.row("quotes", platformId, wants.quoteId) : seen.row(table, platformId, wants.sourceAccountId)
  if (start === undefined || start.text === null || start.customerId === undefined || start.currency === undefined) return false
  const customerId = start.customerId
  const currency = start.currency
  const sourceId = wants.kind === "quote" ? start.sourceId : wants.sourceAccountId
  const destinationId = wants.kind === "quote" ? start.destinationId : wants.destinationAccountId ?? null
  if (sourceId === undefined || destinationId === undefined) return false
  const items: Array<Guessed> = []
  const rows: Array<readonly [table: string, id: string, text: string | null]> = []
  const row = (t: string, id: string): boolean => {
    const r = seen.row(t, platformId, id)
    if (r === undefined) return false
    items.push({ kind: "row", table: t, platformId, id, text: r.text })
    rows.push([t, id, r.text])
    return true
  }
  items.push({ kind: "row", table, platformId, id: wants.kind === "quote" ? wants.quoteId : wants.sourceAccountId, text: start.text })
  rows.push([table, wants.kind === "quote" ? wants.quoteId : wants.sourceAccountId, start.text])
  if (customerId !== null && !row("customers", customerId)) return false
  if (!row("platform_configs", "")) return false
  // The accounts the read ahead would read: each side's, by its kind (the source already, when the reads start from it).
  for (const id of [sourceId, destinationId]) {
    const kind = sideOf(id)
    if (id === null || kind === "none" || (id === sourceId && wants.kind === "accounts")) continue
    if (!row(`${kind}_accounts`, id)) return false
  }
  const balances: Array<readonly [string, number]> = []
  const balance = (account: string | null): boolean => {
    if (account === null || sideOf(account) !== "internal") return true
    const b = seen.balances.get(seenBalanceKey(platformId, account))
    if (b === undefined) return false
    items.push({ kind: "balance", platformId, account, balance: b })
    balances.push([account, b])
    return true
  }
  if (!balance(sourceId)) return false
  if (wants.kind === "quote" && !balance(destinationId)) return false
  const volumeKey = currency === null || wants.volumeSince % DAY_MILLIS !== 0 ? undefined : seenVolumeKey(platformId, customerId ?? "", currency)
  let volume: number | undefined
  if (volumeKey !== undefined) {
    const v = seen.volumes.get(volumeKey)
    if (v === undefined || v.since !== wants.volumeSince) return false
    volume = v.volume
    items.push({ kind: "volume", platformId, customerKey: customerId ?? "", currency: currency!, since: v.since, volume: v.volume })
  }
  // Every row seen: the attempt runs on them, as on a read's.
  for (const [t, id, text] of rows) pending.reads.set(readKey(t, platformId, id), text)
  for (const [account, b] of balances) {
    const key = balanceKey(platformId, account)
    if (!pending.balances.has(key)) pending.balances.set(key, b)
  }
  if (volumeKey !== undefined && volume !== undefined) {
    pending.reads.set(readKey("sent_volumes", platformId, customerId ?? "", currency!, String(wants.volumeSince)), String(volume))
    pending.volumes.set(volumeKey, { since: wants.volumeSince, volume })
  }
  const guess = pending.guess ??= new GuessedReads()
  for (const g of items) guess.items.push(g)
  return true
}

export const makePaymentReads = (query: Query, seen: Seen): PaymentReadsRepository => ({
  readAhead: (platformId, wants) =>
    CurrentPending.use((pending) => {
      // Outside a unit of work there is no snapshot to keep the rows in.
      if (pending === undefined) return Effect.void
      // The rows as last seen, when every one was (checked by the attempt's last statement).
      // Not with writes of the attempt still pending: a read sends them first and sees them,
      // but a guess does not, and the check (in the statement that carries them, which does
      // not see its own writes) would find the rows as guessed.
      // Nor once a statement carried the check of its guesses (a nested unit of work sends
      // the pending part, check included, first): nothing would check the new guesses, and
      // a failure would not run the unit of work again reading them (./store.ts).
      // Nor after the attempt sent a write (an idempotent request's key, say): the check
      // refuses a transaction that wrote before it, so the guess could only cost an attempt.
      if (
        pending.guessing && pending.statements.length === 0 && !pending.wrote && pending.guess?.carried !== true && seen.allows() &&
        guessAhead(seen, pending, platformId, wants)
      ) {
        return Effect.void
      }
      const statement = readAheadStatement(seen, platformId, wants)
      if (statement === undefined) return Effect.void
      return Effect.map(query<AheadRow>(statement.text, statement.params), (rows) => {
        const row = rows[0]
        if (row === undefined) return
        seen.earned()
        const keep = (table: string, id: string, doc: string | null) => pending.reads.set(readKey(table, platformId, id), doc)
        /** Kept, and seen: the store's last sight of the row (its columns kept when it is the same row). */
        const keepSeen = (table: string, id: string, doc: string | null) => {
          keep(table, id, doc)
          const before = seen.row(table, platformId, id)
          seen.rememberRow(table, platformId, id, before !== undefined && before.text === doc ? before : { text: doc })
        }
        const knowBalance = (account: string, balance: string | null) => {
          const key = balanceKey(platformId, account)
          const value = balance === null ? 0 : exactNumber(balance)
          seen.balances.set(seenBalanceKey(platformId, account), value)
          // A balance the attempt moved already is the one it knows; no row is a zero balance.
          if (!pending.balances.has(key)) pending.balances.set(key, value)
        }
        const { shape } = statement
        if (wants.kind === "quote") {
          keep("quotes", wants.quoteId, row.quote)
          seen.rememberRow("quotes", platformId, wants.quoteId, {
            text: row.quote,
            customerId: row.customer_id,
            currency: row.currency,
            sourceId: row.source_id,
            destinationId: row.destination_id
          })
        }
        if (row.customer_id !== null) keepSeen("customers", row.customer_id, row.customer)
        keepSeen("platform_configs", "", row.config)
        // What the text read (its sides' kinds); an account of another kind (a hint that was
        // wrong) is not kept: its repository reads it.
        for (const [id, side, internal, external] of [
          [row.source_id, shape.source, row.source_internal, row.source_external],
          [row.destination_id, shape.destination, row.destination_internal, row.destination_external]
        ] as const) {
          const kind = sideOf(id)
          if (id === null || kind === "none" || !reads(side, kind)) continue
          const doc = kind === "internal" ? internal : external
          // The account the reads started from: seen with the columns a quote starts from.
          if (wants.kind === "accounts" && id === row.source_id) {
            keep(`${kind}_accounts`, id, doc)
            seen.rememberRow(`${kind}_accounts`, platformId, id, { text: doc, customerId: row.customer_id, currency: row.currency })
          } else keepSeen(`${kind}_accounts`, id, doc)
        }
        const { destination_id: destinationId, source_id: sourceId } = row
        if (sourceId !== null && sideOf(sourceId) === "internal" && reads(shape.source, "internal")) knowBalance(sourceId, row.source_balance)
        if (wants.kind === "quote" && destinationId !== null && sideOf(destinationId) === "internal" && reads(shape.destination, "internal")) {
          knowBalance(destinationId, row.destination_balance)
        }
        if (row.currency !== null && row.volume !== null) {
          keep("sent_volumes", [row.customer_id ?? "", row.currency, String(wants.volumeSince)].join("\u0000"), row.volume)
          // A sum of exact amounts may itself exceed 2^53 (./money.ts `sentVolume`): the limit
          // check takes the nearest number (`cachedVolume`); only an exact one is seen, to be guessed.
          const volume = Number(row.volume)
          if (Number.isSafeInteger(volume)) {
            const seenVolume = { since: wants.volumeSince, volume }
            pending.volumes.set(seenVolumeKey(platformId, row.customer_id ?? "", row.currency), seenVolume)
            seen.volumes.set(seenVolumeKey(platformId, row.customer_id ?? "", row.currency), seenVolume)
          }
        }
      })
    })
})
