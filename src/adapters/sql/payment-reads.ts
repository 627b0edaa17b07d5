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
import { docOf, type Query } from "./documents.js"
import { balanceKey, CurrentPending, readKey } from "./pending.js"

const DAY_MILLIS = 86_400_000

/** `read`, unless the attempt read the row ahead (`id` in `table`): then its document as read. */
export const cachedDoc = <T>(table: string, platformId: string, id: string, read: Effect.Effect<T | undefined>): Effect.Effect<T | undefined> =>
  CurrentPending.use((pending) => {
    const hit = pending?.reads.get(readKey(table, platformId, id))
    if (hit === undefined) return read
    return Effect.succeed(hit === null ? undefined : docOf<T>({ doc: hit }))
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

interface AheadRow {
  readonly kind: string
  readonly id: string
  readonly extra: string | null
  readonly doc: string | null
}

/**
 * The one row of the reads' parameters (`spec`: the quote's document, the customer, the
 * sending currency, the source and destination account ids), from the quote (`$2` its
 * id) or from the source account (`$2`, in `table`) and the destination (`$3`).
 */
const specOf = (wants: PaymentReadAhead): { readonly text: string; readonly params: ReadonlyArray<unknown> } | undefined => {
  if (wants.kind === "quote") {
    return {
      text: `select q.doc as quote_doc, q.doc->'plan'->>'customerId' as customer_id,
          q.doc->'quote'->'sendingCurrency'->>'code' as currency,
          q.doc->'plan'->'source'->>'accountId' as source_id,
          coalesce(q.doc->'plan'->'destination'->>'accountId', q.doc->'plan'->'destination'->>'internalAccountId') as destination_id
        from quotes q where q.platform_id = $1 and q.id = $2`,
      params: [wants.quoteId]
    }
  }
  const table = wants.sourceAccountId.startsWith("InternalAccount:")
    ? "internal_accounts"
    : wants.sourceAccountId.startsWith("ExternalAccount:")
    ? "external_accounts"
    : undefined
  // An id of neither kind names no account: the quote refuses it without reading anything.
  if (table === undefined) return undefined
  return {
    text: `select null::jsonb as quote_doc, o.customer_id, o.currency, $2::text as source_id, $3::text as destination_id
        from ${table} o where o.platform_id = $1 and o.id = $2`,
    params: [wants.sourceAccountId, wants.destinationAccountId ?? null]
  }
}

/** The statement of `readAhead`: rows of (kind, id, extra, doc), `doc` null where the row is absent. */
export const readAheadStatement = (
  platformId: string,
  wants: PaymentReadAhead
): { readonly text: string; readonly params: ReadonlyArray<unknown> } | undefined => {
  const spec = specOf(wants)
  if (spec === undefined) return undefined
  const params: Array<unknown> = [platformId, ...spec.params]
  // The daily volume from a day's start is one row per day (./money.ts `sentVolume`).
  const volume = wants.volumeSince % DAY_MILLIS === 0
  if (volume) params.push(wants.volumeSince)
  const since = `$${params.length}`
  // An execution moves both accounts (their balances are announced); a quote reads the source's only.
  const balanced = wants.kind === "quote" ? "true" : "i.source"
  const text = `with spec as (${spec.text}),
    ids as (select source_id as id, true as source from spec union all select destination_id, false from spec)
    select 'quotes'::text as kind, $2::text as id, null::text as extra, s.quote_doc::text as doc from spec s where s.quote_doc is not null
    union all select 'customers', s.customer_id, null,
      (select c.doc::text from customers c where c.platform_id = $1 and c.id = s.customer_id) from spec s where s.customer_id is not null
    union all select 'platform_configs', '', null, (select c.doc::text from platform_configs c where c.platform_id = $1)
    union all select 'internal_accounts', i.id, null,
      (select a.doc::text from internal_accounts a where a.platform_id = $1 and a.id = i.id) from ids i where i.id like 'InternalAccount:%'
    union all select 'external_accounts', i.id, null,
      (select a.doc::text from external_accounts a where a.platform_id = $1 and a.id = i.id) from ids i where i.id like 'ExternalAccount:%'
    union all select 'ledger_balances', i.id, null,
      (select b.balance::text from ledger_balances b where b.platform_id = $1 and b.account = i.id) from ids i
      where i.id like 'InternalAccount:%' and ${balanced}${
    volume
      ? `
    union all select 'sent_volumes', coalesce(s.customer_id, ''), s.currency,
      (select coalesce(sum(v.amount), 0)::text from sent_volumes v
        where v.platform_id = $1 and v.customer_key = coalesce(s.customer_id, '') and v.currency = s.currency and v.day_ms >= ${since}::bigint)
      from spec s where s.currency is not null`
      : ""
  }`
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
        for (const row of rows) {
          if (row.kind === "ledger_balances") {
            const key = balanceKey(platformId, row.id)
            // A balance the attempt moved already is the one it knows.
            if (!pending.balances.has(key)) pending.balances.set(key, row.doc === null ? 0 : exactNumber(row.doc))
          } else if (row.kind === "sent_volumes") {
            if (row.extra !== null && row.doc !== null) {
              pending.reads.set(readKey("sent_volumes", platformId, row.id, row.extra, String(wants.volumeSince)), row.doc)
            }
          } else {
            pending.reads.set(readKey(row.kind, platformId, row.id), row.doc)
          }
        }
      })
    })
})
