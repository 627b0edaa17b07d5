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
 * starts with nothing read ahead (a rerun reads again), so nothing outlives the
 * transaction: nothing another process could change is kept.
 *
 * The statement reads the same rows, by the same index lookups, as the separate reads it
 * replaces (each lookup a scalar subquery on the table's key), so under SERIALIZABLE it
 * takes the same predicate locks: no payment conflicts with another it did not before.
 */
import { Effect } from "effect"
import type { PaymentReadAhead, PaymentReadsRepository } from "../../ports/money.js"
import { docOf, keptDocOf, type Query } from "./documents.js"
import { balanceKey, CurrentPending, readKey } from "./pending.js"

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

/**
 * The one row of the reads' parameters (`spec`: the quote's document, the customer, the
 * sending currency, the source and destination account ids), from the quote (`$2` its
 * id) or from the source account (`$2`, in `table`) and the destination (`$3`).
 */
const specText = (table: "quotes" | "internal_accounts" | "external_accounts"): string =>
  table === "quotes"
    ? `select q.doc as quote_doc, q.customer_id, q.currency, q.source_id, q.destination_id
        from quotes q where q.platform_id = $1 and q.id = $2`
    : `select null::json as quote_doc, o.customer_id, o.currency, $2::text as source_id, $3::text as destination_id
        from ${table} o where o.platform_id = $1 and o.id = $2`

/** The table the reads start from (see `specText`), or undefined: an id of neither kind names no account. */
const startOf = (wants: PaymentReadAhead): "quotes" | "internal_accounts" | "external_accounts" | undefined =>
  wants.kind === "quote"
    ? "quotes"
    : wants.sourceAccountId.startsWith("InternalAccount:")
    ? "internal_accounts"
    : wants.sourceAccountId.startsWith("ExternalAccount:")
    ? "external_accounts"
    : undefined

/**
 * The text of `readAhead`'s statement: one row (none when the quote or the source account
 * is absent), each read a scalar subquery on its table's key, asked only for an id of its
 * kind (a `case` arm runs its subquery only when taken). One row of columns rather than
 * a row per read: this shape plans in about four fifths of the time of a union of one
 * row per read (PGlite planned every statement it ran until its client kept them
 * prepared, ./pglite.ts; both databases now plan it a few times per connection).
 * `since` is the daily volume's parameter, when it is read.
 */
const readAheadText = (table: "quotes" | "internal_accounts" | "external_accounts", since: string | undefined): string => {
  const internal = (column: string) => `s.${column} like 'InternalAccount:%'`
  const external = (column: string) => `s.${column} like 'ExternalAccount:%'`
  const account = (table: string, column: string) =>
    `(select a.doc::text from ${table} a where a.platform_id = $1 and a.id = s.${column})`
  const balance = (column: string) => `(select b.balance::text from ledger_balances b where b.platform_id = $1 and b.account = s.${column})`
  return `with s as materialized (${specText(table)})
    select s.quote_doc::text as quote, s.customer_id, s.currency, s.source_id, s.destination_id,
      (select c.doc::text from customers c where c.platform_id = $1 and c.id = s.customer_id) as customer,
      (select c.doc::text from platform_configs c where c.platform_id = $1) as config,
      case when ${internal("source_id")} then ${account("internal_accounts", "source_id")} end as source_internal,
      case when ${external("source_id")} then ${account("external_accounts", "source_id")} end as source_external,
      case when ${internal("destination_id")} then ${account("internal_accounts", "destination_id")} end as destination_internal,
      case when ${external("destination_id")} then ${account("external_accounts", "destination_id")} end as destination_external,
      case when ${internal("source_id")} then ${balance("source_id")} end as source_balance,
      ${
    // An execution moves both accounts (their balances are announced); a quote reads the source's only.
    table === "quotes" ? `case when ${internal("destination_id")} then ${balance("destination_id")} end` : "null::text"} as destination_balance,
      ${
    since !== undefined
      ? `case when s.currency is not null then (select coalesce(sum(v.amount), 0)::text from sent_volumes v
          where v.platform_id = $1 and v.customer_key = coalesce(s.customer_id, '') and v.currency = s.currency and v.day_ms >= ${since}::bigint) end`
      : "null::text"
  } as volume
    from s`
}

/** The statement's texts, built once each (six shapes: where the reads start, with the daily volume or without). */
const readAheadTexts = new Map<string, string>()

/** The statement of `readAhead` (see `readAheadText`), or undefined when it would read nothing. */
export const readAheadStatement = (
  platformId: string,
  wants: PaymentReadAhead
): { readonly text: string; readonly params: ReadonlyArray<unknown> } | undefined => {
  const table = startOf(wants)
  if (table === undefined) return undefined
  const params: Array<unknown> = wants.kind === "quote"
    ? [platformId, wants.quoteId]
    : [platformId, wants.sourceAccountId, wants.destinationAccountId ?? null]
  // The daily volume from a day's start is one row per day (./money.ts `sentVolume`).
  const volume = wants.volumeSince % DAY_MILLIS === 0
  if (volume) params.push(wants.volumeSince)
  const key = `${table}${volume ? `:$${params.length}` : ""}`
  let text = readAheadTexts.get(key)
  if (text === undefined) {
    text = readAheadText(table, volume ? `$${params.length}` : undefined)
    readAheadTexts.set(key, text)
  }
  return { text, params }
}

/** A bigint column read as text, as an exact number. */
const exactNumber = (text: string): number => {
  const n = Number(text)
  if (!Number.isSafeInteger(n)) throw new Error(`a stored amount is not an exact integer: ${text}`)
  return n
}

export const makePaymentReads = (query: Query): PaymentReadsRepository => ({
  readAhead: (platformId, wants) =>
    CurrentPending.use((pending) => {
      // Outside a unit of work there is no snapshot to keep the rows in.
      if (pending === undefined) return Effect.void
      const statement = readAheadStatement(platformId, wants)
      if (statement === undefined) return Effect.void
      return Effect.map(query<AheadRow>(statement.text, statement.params), (rows) => {
        const row = rows[0]
        if (row === undefined) return
        const keep = (table: string, id: string, doc: string | null) => pending.reads.set(readKey(table, platformId, id), doc)
        const knowBalance = (account: string, balance: string | null) => {
          const key = balanceKey(platformId, account)
          // A balance the attempt moved already is the one it knows; no row is a zero balance.
          if (!pending.balances.has(key)) pending.balances.set(key, balance === null ? 0 : exactNumber(balance))
        }
        if (wants.kind === "quote") keep("quotes", wants.quoteId, row.quote)
        if (row.customer_id !== null) keep("customers", row.customer_id, row.customer)
        keep("platform_configs", "", row.config)
        for (const [id, internal, external] of [
          [row.source_id, row.source_internal, row.source_external],
          [row.destination_id, row.destination_internal, row.destination_external]
        ] as const) {
          if (id?.startsWith("InternalAccount:") === true) keep("internal_accounts", id, internal)
          else if (id?.startsWith("ExternalAccount:") === true) keep("external_accounts", id, external)
        }
        if (row.source_id?.startsWith("InternalAccount:") === true) knowBalance(row.source_id, row.source_balance)
        if (wants.kind === "quote" && row.destination_id?.startsWith("InternalAccount:") === true) {
          knowBalance(row.destination_id, row.destination_balance)
        }
        if (row.currency !== null && row.volume !== null) {
          keep("sent_volumes", [row.customer_id ?? "", row.currency, String(wants.volumeSince)].join("\u0000"), row.volume)
        }
      })
    })
})
