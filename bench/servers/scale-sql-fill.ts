/**
 * The scale bench's fast fill for the SQL stores (bench/servers/scale-app.ts,
 * `SCALE_FILL=sql`, the default on PostgreSQL and PGlite): the template payment's rows
 * (and its payer/payee pair's) are cloned set-wise inside the database, one
 * `insert … select … from generate_series(…)` per table and chunk, instead of one
 * statement per row through the store port (docs/decisions.md, "The scale bench's SQL
 * fill is set-based").
 *
 * How a row is cloned: the template row as JSON (`to_jsonb(row)::text`: every column,
 * the document nested) is cut, here, at every token that must differ per clone: ids
 * (a fresh UUID-shaped tail per clone, the id's `Kind:` prefix kept), unique keys
 * (platformCustomerId, UMA address, external account equivalence key: a suffix per
 * pair), instants (epoch milliseconds in columns and documents, ISO-8601 text in
 * documents: shifted to the clone's creation time). The statement glues the pieces back
 * with SQL expressions of the clone's number `g`, casts the text to jsonb and reads it
 * back as the table's row (`jsonb_populate_record`): the same columns, the same
 * document, the same index keys as the port writes, since the template's were written
 * by it. Serial columns (`seq` of events and journal entries) come from their sequences
 * in clone order; a webhook delivery takes its event's `seq` (column and document). The
 * rows the port's writes derive (`journal_account_postings`, `sent_volumes`: written by
 * the writes' own statements since migration `20_lighter_money_writes`, no trigger) are
 * derived at the end from the cloned rows, and internal accounts' `ledger_balances` rows
 * set to the sum of their postings (what the port's moves leave).
 *
 * Who pays and when, as the port fill (scale-app.ts): pair `p` (0 … 49 hot, then cold
 * pairs, ten payments each) is dated at the start of the 30-day spread; payment `j` is
 * paid by hot pair `(j / 2) mod 50` when `j` is even, cold pair `(j / 2) mod cold`
 * otherwise, created at `start + 60 s + j × step`, oldest first.
 */

/** One SQL round trip (PostgreSQL through `pg`, or PGlite). */
export type Exec = <R extends Record<string, unknown>>(text: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<R>>

export interface SqlFillTemplate {
  readonly platformId: string
  /** Ids of the pair's rows (customers, their accounts, the external account, the funding entry, the pair's events). */
  readonly pairIds: ReadonlyArray<string>
  /** Unique keys of the pair's rows (platformCustomerId, UMA address, equivalence key): a suffix per pair. */
  readonly pairKeys: ReadonlyArray<string>
  /** Ids of the payment's rows (quote, transaction, journal entries, events: webhook deliveries share their event's). */
  readonly paymentIds: ReadonlyArray<string>
  /** The template payment's creation time (ms): the clones' times are shifted from it. */
  readonly at: number
}

export interface SqlFillPlan {
  readonly payments: number
  readonly hotPairs: number
  readonly paymentsPerColdPair: number
  readonly spreadMs: number
  /**
   * Events (and their deliveries) dated before this instant (ms) are not written: the
   * bench's retention sweep, right after the fill, would remove them (undefined: all written).
   */
  readonly eventsSince: number | undefined
  /** Payments per statement round (default 20,000). */
  readonly chunk: number
  readonly log: (line: string) => void
}

/** Tables the fill clones rows of; the rest are derived (triggers, balances) or not per payment. */
const CLONED = ["customers", "internal_accounts", "external_accounts", "journal_entries", "quotes", "transactions", "events", "webhook_deliveries"] as const
/** Tables whose rows are derived from the cloned ones at the end, never cloned. */
const DERIVED = new Set(["ledger_balances", "sent_volumes", "journal_account_postings"])
/** Not a payment's: bounded histories and platform-wide rows. */
const IGNORED = new Set(["timer_outcomes", "platform_clocks", "webhook_cursors", "webhook_keys", "platform_configs", "payments_migrations", "sandbox_faults"])

const DAY = 86_400_000
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0")

/** The fresh id of template id `id` (token number `t`) for clone `n`: its `Kind:` prefix and a UUID-shaped tail. */
export const cloneId = (id: string, t: number, n: number): string => {
  const colon = id.lastIndexOf(":")
  return `${id.slice(0, colon + 1)}00000000-0000-7000-8${hex(t, 3)}-${hex(n, 12)}`
}
const cloneIdSql = (id: string, t: number, n: string): string => {
  const colon = id.lastIndexOf(":")
  return `(${lit(`${id.slice(0, colon + 1)}00000000-0000-7000-8${hex(t, 3)}-`)} || lpad(to_hex(${n}), 12, '0'))`
}
/** A unique key's clone for pair `p`: a suffix `x<p in hex>` (before the domain of an UMA address). */
export const cloneKey = (key: string, p: number): string => {
  const at = key.startsWith("$") ? key.indexOf("@") : -1
  return at > 0 ? `${key.slice(0, at)}x${p.toString(16)}${key.slice(at)}` : `${key}-x${p.toString(16)}`
}
const cloneKeySql = (key: string, p: string): string => {
  const at = key.startsWith("$") ? key.indexOf("@") : -1
  return at > 0 ? `(${lit(`${key.slice(0, at)}x`)} || to_hex(${p}) || ${lit(key.slice(at))})` : `(${lit(`${key}-x`)} || to_hex(${p}))`
}

type Token =
  | { readonly kind: "pairId" | "paymentId"; readonly text: string; readonly t: number }
  | { readonly kind: "key"; readonly text: string }
  | { readonly kind: "ms"; readonly text: string; readonly value: number }
  | { readonly kind: "iso"; readonly text: string; readonly value: number; readonly millis: boolean }

/** Pair-level ids are tokens 0x800 + i, payment-level ids tokens i: never the same tail. */
export const PAIR_TOKEN_BASE = 0x800

/** The SQL text of a template row's JSON for clone `g` (shift `sh` ms, pair `p`). */
const rowExpression = (json: string, tokens: ReadonlyMap<string, Token>, pattern: RegExp): string => {
  const parts: Array<string> = []
  let last = 0
  for (const m of json.matchAll(pattern)) {
    const token = tokens.get(m[0])
    if (token === undefined) continue
    parts.push(lit(json.slice(last, m.index)))
    last = m.index + m[0].length
    switch (token.kind) {
      case "pairId":
        parts.push(cloneIdSql(token.text, token.t, "p"))
        break
      case "paymentId":
        parts.push(cloneIdSql(token.text, token.t, "g"))
        break
      case "key":
        parts.push(cloneKeySql(token.text, "p"))
        break
      case "ms":
        parts.push(`(${token.value}::bigint + sh)::text`)
        break
      case "iso":
        parts.push(
          `to_char((timestamptz 'epoch' + (${token.value}::bigint + sh) * interval '1 millisecond') at time zone 'UTC', ${
            lit(token.millis ? `YYYY-MM-DD"T"HH24:MI:SS.MS"Z"` : `YYYY-MM-DD"T"HH24:MI:SS"Z"`)
          })`
        )
        break
    }
  }
  parts.push(lit(json.slice(last)))
  return `(${parts.join(" || ")})::jsonb`
}

interface TemplateRow {
  readonly table: string
  readonly json: string
  /** Order within the clone (the template's own order: seq, else creation). */
  readonly order: number
}

export interface SqlFillResult {
  readonly pairCount: number
  readonly rows: Record<string, number>
}

/**
 * Clones the template's rows: pairs first (dated at `start`), then the payments in
 * chunks, then the internal accounts' balances. `start` is the spread's beginning (ms).
 */
export const sqlFill = async (exec: Exec, template: SqlFillTemplate, plan: SqlFillPlan, start: number): Promise<SqlFillResult> => {
  const { platformId } = template
  const N = plan.payments
  const cold = Math.max(1, Math.ceil((N - Math.floor(N / 2)) / plan.paymentsPerColdPair))
  const pairCount = plan.hotPairs + cold

  // ---- the template's rows, per table, as JSON text
  const tables = (await exec<{ table_name: string }>(
    `select table_name from information_schema.columns where table_schema = current_schema() and column_name = 'platform_id' order by table_name`
  )).map((r) => r.table_name)
  const pairIds = [...template.pairIds]
  const paymentIds = [...template.paymentIds]
  const pairIdSet = new Set(pairIds)
  const paymentIdSet = new Set(paymentIds)
  const idPattern = new RegExp([...template.pairIds, ...template.paymentIds, ...template.pairKeys].sort((a, b) => b.length - a.length).map(escapeRe).join("|"), "g")
  const pairRows: Array<TemplateRow> = []
  const paymentRows: Array<TemplateRow> = []
  for (const table of tables) {
    if (DERIVED.has(table) || IGNORED.has(table)) continue
    const rows = await exec<{ j: string }>(`select to_jsonb(t)::text as j from ${table} t where platform_id = $1`, [platformId])
    for (const { j } of rows) {
      const found = [...j.matchAll(idPattern)].map((m) => m[0])
      if (found.length === 0) continue
      const parsed = JSON.parse(j) as Record<string, unknown>
      const order = typeof parsed["seq"] === "number" ? parsed["seq"] : typeof parsed["created_ms"] === "number" ? parsed["created_ms"] : 0
      if (!(CLONED as ReadonlyArray<string>).includes(table)) {
        plan.log(`  sql fill: table ${table} holds a template row the fill does not clone: ${j.slice(0, 160)}`)
        continue
      }
      const isPayment = found.some((f) => paymentIdSet.has(f))
      ;(isPayment ? paymentRows : pairRows).push({ table, json: j, order })
      // A row the template made that the caller did not name (a funding's own records): its id is cloned too.
      const id = parsed["id"]
      if (typeof id === "string" && !pairIdSet.has(id) && !paymentIdSet.has(id)) {
        plan.log(`  sql fill: ${table} row ${id} cloned per ${isPayment ? "payment" : "pair"} (found by the ids it names)`)
        if (isPayment) {
          paymentIds.push(id)
          paymentIdSet.add(id)
        } else {
          pairIds.push(id)
          pairIdSet.add(id)
        }
      }
    }
  }

  // ---- tokens: ids, keys, and every instant within a day of the template
  const tokens = new Map<string, Token>()
  pairIds.forEach((text, i) => tokens.set(text, { kind: "pairId", text, t: PAIR_TOKEN_BASE + i }))
  paymentIds.forEach((text, i) => tokens.set(text, { kind: "paymentId", text, t: i }))
  for (const text of template.pairKeys) tokens.set(text, { kind: "key", text })
  for (const row of [...pairRows, ...paymentRows]) {
    for (const m of row.json.matchAll(/(?<![\w.-])\d{13}(?![\w.])/g)) {
      const value = Number(m[0])
      if (Math.abs(value - template.at) < DAY) tokens.set(m[0], { kind: "ms", text: m[0], value })
    }
    for (const m of row.json.matchAll(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z/g)) {
      const value = Date.parse(m[0])
      if (ISO_RE.test(m[0]) && Math.abs(value - template.at) < DAY) tokens.set(m[0], { kind: "iso", text: m[0], value, millis: m[0].length > 20 })
    }
  }
  const pattern = new RegExp([...tokens.keys()].sort((a, b) => b.length - a.length).map(escapeRe).join("|"), "g")

  const byTable = (rows: ReadonlyArray<TemplateRow>) => {
    const out = new Map<string, Array<TemplateRow>>()
    for (const r of [...rows].sort((a, b) => a.order - b.order)) out.set(r.table, [...(out.get(r.table) ?? []), r])
    return out
  }
  const pairTables = byTable(pairRows)
  const paymentTables = byTable(paymentRows)
  // A delivery is its event's: the k-th template delivery must be the k-th template event's.
  const idOfRow = (r: TemplateRow) => (JSON.parse(r.json) as { readonly id?: unknown }).id
  for (const tables of [pairTables, paymentTables]) {
    const deliveries = tables.get("webhook_deliveries")
    const events = tables.get("events") ?? []
    if (deliveries !== undefined && (deliveries.length !== events.length || deliveries.some((d, k) => idOfRow(d) !== idOfRow(events[k]!)))) {
      throw new Error("the template's webhook deliveries are not one per event, in the events' order")
    }
  }
  plan.log(`  sql fill: template rows per pair ${[...pairTables].map(([t, r]) => `${t} ${r.length}`).join(", ")}; per payment ${
    [...paymentTables].map(([t, r]) => `${t} ${r.length}`).join(", ")}; ${tokens.size} tokens`)

  const columnsOf = async (table: string) =>
    (await exec<{ column_name: string }>(
      `select column_name from information_schema.columns where table_schema = current_schema() and table_name = $1 order by ordinal_position`,
      [table]
    )).map((r) => r.column_name)
  const columns = new Map<string, ReadonlyArray<string>>()
  for (const t of new Set([...pairTables.keys(), ...paymentTables.keys()])) columns.set(t, await columnsOf(t))

  /** One statement: the clones `from … to` (inclusive) of a table's template rows, in clone then template order. */
  const statement = (table: string, rows: ReadonlyArray<TemplateRow>, from: number, to: number, sh: string, p: string, events?: ReadonlyArray<TemplateRow>): string => {
    const cols = columns.get(table)!
    const serial = table === "journal_entries"
    const delivery = table === "webhook_deliveries"
    const kept = cols.filter((c) => !(serial && c === "seq"))
    const cases = rows.map((r, k) => `when ${k} then ${rowExpression(r.json, tokens, pattern)}`).join("\n      ")
    // Only the narrow (g, k) pairs are sorted (clone, then template order: journal entries take
    // their serial seq in that order); the wide rows are built after, in that order.
    const inner = `select jsonb_populate_record(null::${table}, case k ${cases} end) as x
      from (select g, k from generate_series(${from}::bigint, ${to}::bigint) g cross join generate_series(0, ${rows.length - 1}) k order by g, k offset 0) gk
      cross join lateral (select (${sh})::bigint as sh, (${p})::bigint as p) v
      offset 0`
    if (table === "events" || delivery) {
      // Events take seqs reserved for the chunk ($1, the first): event k of clone g gets
      // $1 + (g - from) × (events per clone) + k, and its delivery the same (column and document).
      const perClone = (events ?? rows).length
      const seq = `($1::bigint + (g - ${from}) * ${perClone} + k)`
      const inner2 = inner.replace("as x\n", `as x, ${seq} as seq\n`)
      const select = kept.map((c) => c === "seq" ? "q.seq" : delivery && c === "doc" ? `jsonb_set((q.x).doc, '{seq}', to_jsonb(q.seq))` : `(q.x).${c}`)
      return `insert into ${table} (${kept.join(", ")}) select ${select.join(", ")} from (${inner2}) q`
    }
    return `insert into ${table} (${kept.join(", ")}) select ${kept.map((c) => `(q.x).${c}`).join(", ")} from (${inner}) q`
  }
  const order = (tables: ReadonlyMap<string, ReadonlyArray<TemplateRow>>) =>
    [...tables.keys()].sort((a, b) => (a === "webhook_deliveries" ? 1 : 0) - (b === "webhook_deliveries" ? 1 : 0))

  const counts: Record<string, number> = {}
  /** Time spent per table (for the progress lines). */
  const millis: Record<string, number> = {}
  /** `eventsFrom`: the first clone (of from … to) whose events and deliveries are written. */
  const run = async (tables: ReadonlyMap<string, ReadonlyArray<TemplateRow>>, from: number, to: number, sh: string, p: string, eventsFrom: number) => {
    await exec("begin")
    try {
      for (const table of order(tables)) {
        const rows = tables.get(table)!
        const t0 = Date.now()
        if (table === "events") {
          if (eventsFrom > to) continue
          const from_ = Math.max(from, eventsFrom)
          // The chunk's event seqs, reserved at once (the server writes no event while it fills: a stray one would collide, loudly).
          const n = rows.length * (to - from_ + 1)
          const [first] = await exec<{ first: string }>(`select nextval(pg_get_serial_sequence('events', 'seq'))::text as first`)
          await exec(`select setval(pg_get_serial_sequence('events', 'seq'), $1::bigint)`, [Number(first!.first) + n - 1])
          await exec(statement(table, rows, from_, to, sh, p), [first!.first])
          counts[table] = (counts[table] ?? 0) + n
          const deliveries = tables.get("webhook_deliveries")
          if (deliveries !== undefined) {
            await exec(statement("webhook_deliveries", deliveries, from_, to, sh, p, rows), [first!.first])
            counts["webhook_deliveries"] = (counts["webhook_deliveries"] ?? 0) + deliveries.length * (to - from_ + 1)
          }
        } else if (table === "webhook_deliveries") {
          if (!tables.has("events")) throw new Error("webhook deliveries cloned without their events")
          continue
        } else {
          await exec(statement(table, rows, from, to, sh, p))
          counts[table] = (counts[table] ?? 0) + rows.length * (to - from + 1)
        }
        millis[table] = (millis[table] ?? 0) + Date.now() - t0
      }
      await exec("commit")
    } catch (e) {
      await exec("rollback")
      throw e
    }
  }

  // ---- pairs, dated at the start of the spread
  const began = Date.now()
  const pairShift = start - template.at
  for (let from = 0; from < pairCount; from += plan.chunk) {
    const to = Math.min(pairCount, from + plan.chunk) - 1
    await run(pairTables, from, to, String(pairShift), "g", plan.eventsSince !== undefined && start < plan.eventsSince ? to + 1 : from)
  }
  plan.log(`  sql fill: ${pairCount.toLocaleString("en-US")} pairs in ${((Date.now() - began) / 1000).toFixed(1)} s`)

  // ---- payments, oldest first
  const step = (plan.spreadMs - 60_000) / Math.max(1, N)
  const sh = `${start + 60_000 - template.at}::bigint + floor(g * ${step})::bigint`
  const p = `case when g % 2 = 0 then (g / 2) % ${plan.hotPairs} else ${plan.hotPairs} + (g / 2) % ${cold} end`
  // The first payment dated at or after eventsSince (its time: start + 60 s + floor(g × step)).
  const eventsFrom = plan.eventsSince === undefined ? 0 : Math.max(0, Math.ceil((plan.eventsSince - start - 60_000) / step))
  for (let from = 0; from < N; from += plan.chunk) {
    const to = Math.min(N, from + plan.chunk)
    await run(paymentTables, from, to - 1, sh, p, eventsFrom)
    const seconds = (Date.now() - began) / 1000
    plan.log(`  sql fill: ${to.toLocaleString("en-US")} / ${N.toLocaleString("en-US")} payments (${seconds.toFixed(0)} s, ${Math.round(to / seconds)}/s; s per table ${
      Object.entries(millis).map(([t, ms]) => `${t} ${(ms / 1000).toFixed(1)}`).join(", ")})`)
  }

  // ---- the rows the store's writes derive (./money.ts `post`, `putTransaction`; no trigger
  // writes them on insert since migration 20_lighter_money_writes): each internal account's
  // rows of a journal entry, and the daily volumes, from the cloned entries and payments
  // (the template's own rows kept: the same values)
  await exec(
    `insert into journal_account_postings (platform_id, account, seq, currency, amount)
     select j.platform_id, p->>'account', j.seq, min(p->>'currency'), sum((p->>'amount')::bigint)
     from journal_entries j, json_array_elements(j.doc::json->'postings') p
     where j.platform_id = $1 and p->>'account' like 'InternalAccount:%'
     group by j.platform_id, p->>'account', j.seq
     on conflict (platform_id, account, seq) do nothing`,
    [platformId]
  )
  await exec(`delete from sent_volumes where platform_id = $1`, [platformId])
  await exec(
    `insert into sent_volumes (platform_id, customer_key, currency, day_ms, amount)
     select platform_id, coalesce(customer_id, ''), sent_currency, created_ms - mod(mod(created_ms, 86400000) + 86400000, 86400000), sum(sent_amount)
     from transactions
     where platform_id = $1 and type = 'OUTGOING' and sent_currency is not null and sent_amount is not null and status not in ('FAILED', 'EXPIRED')
     group by 1, 2, 3, 4`,
    [platformId]
  )
  // ---- internal accounts' balances: the sum of their postings, as the port's moves leave them
  await exec(
    `insert into ledger_balances (platform_id, account, currency, balance)
     select platform_id, account, min(currency), sum(amount) from journal_account_postings where platform_id = $1 group by platform_id, account
     on conflict (platform_id, account) do update set balance = excluded.balance`,
    [platformId]
  )
  // What autovacuum would have done by the time a table held this much: statistics for the planner, the visibility map.
  // A vacuum run right after the fill's last commit marked no page all-visible (or some, by timing): these clusters
  // commit asynchronously (synchronous_commit = off, test/support/postgres.ts) and a page is marked only once its rows'
  // commits are known flushed, a few hundred milliseconds later. Without the map every index-only scan of the
  // measurements read the heap (docs/performance.md, "The bounded counts' first pages"), so a table the vacuum left
  // unmarked is vacuumed again (pages already marked are skipped), a few times at most.
  for (const table of [...CLONED, ...DERIVED]) {
    for (let attempt = 1; ; attempt++) {
      await exec(`vacuum (analyze) ${table}`)
      const [vm] = await exec<{ pages: number; visible: number }>(`select relpages as pages, relallvisible as visible from pg_class where oid = $1::regclass`, [table])
      if (vm === undefined || vm.visible >= vm.pages) break
      if (attempt === 10) {
        plan.log(`  sql fill: ${table}: ${vm.visible} of ${vm.pages} pages all-visible after ${attempt} vacuums`)
        break
      }
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  // And the fill's dirty pages written out now: else the checkpointer writes them while the
  // bench measures, and the cluster's CPU per request (which counts it) grows with the fill.
  await exec("checkpoint").catch((e: unknown) => plan.log(`  sql fill: no checkpoint (${e instanceof Error ? e.message : String(e)})`))
  plan.log(`  sql fill: done in ${((Date.now() - began) / 1000).toFixed(1)} s (${Object.entries(counts).map(([t, n]) => `${t} ${n.toLocaleString("en-US")}`).join(", ")}${
    plan.eventsSince === undefined ? "" : `; events and deliveries of the ${eventsFrom.toLocaleString("en-US")} payments and the pairs older than the retention period not written`})`)
  return { pairCount, rows: counts }
}
