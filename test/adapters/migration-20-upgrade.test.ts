/**
 * Migration `20_lighter_money_writes` on a database that holds money rows written before it
 * (by the statements of that time, triggers included): the quotes get the columns the
 * execution's read ahead starts from, the documents keep their JSON as json, the journal
 * postings and daily volumes written by the old triggers stay, and what the kept volume
 * trigger does after it (a payment's update or removal) still moves the volume. The new
 * writes themselves are held to the same results on every store by the contract suites
 * (money-store-contract, journal-store-contract).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { MIGRATIONS, MIGRATIONS_TABLE, resolveMigrations, runMigrations } from "../../src/adapters/sql/migrations.js"
import { pgliteClientLayer } from "../../src/adapters/sql/pglite.js"
import { emptyDatabase } from "../support/databases.js"

/** Each database the store runs on, fresh and empty. */
const DATABASES: ReadonlyArray<readonly [name: string, layer: () => Promise<Layer.Layer<SqlClient.SqlClient, unknown>>]> = [
  ["PGlite", () => Promise.resolve(pgliteClientLayer(undefined))],
  ["PostgreSQL", async () => PgClient.layer({ url: Redacted.make(await emptyDatabase()) })]
]

const before20 = Object.fromEntries(Object.entries(MIGRATIONS).filter(([id]) => Number(id.split("_")[0]) < 20))
const DAY = 86_400_000
const T = 20 * DAY + 5_000

const quoteDoc = {
  platformId: "p",
  quote: { id: "Quote:1", createdAt: new Date(T).toISOString(), sendingCurrency: { code: "USD" } },
  plan: {
    customerId: "Customer:1",
    source: { kind: "INTERNAL", accountId: "InternalAccount:a" },
    destination: { kind: "UMA", umaAddress: "$x@y.invalid", internalAccountId: "InternalAccount:b" }
  }
}
const entryDoc = {
  id: "JournalEntry:1",
  postings: [
    { account: "InternalAccount:a", currency: "USD", amount: -100 },
    { account: "InternalAccount:b", currency: "USD", amount: 60 },
    { account: "InternalAccount:b", currency: "USD", amount: 40 },
    { account: "System:world", currency: "USD", amount: 0 }
  ]
}

describe.each(DATABASES)("on %s", (_name, layer) => {
  it("an upgraded database keeps its money rows, and its quotes get the read ahead's columns", async () => {
    const database = ManagedRuntime.make(await layer())
    const r = await database.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.withTransaction(Migrator.make({})({ loader: resolveMigrations(before20, []), table: MIGRATIONS_TABLE }))
      // Rows as the store wrote them before migration 20 (its triggers wrote the postings and the volume).
      yield* sql.unsafe(`insert into quotes (platform_id, id, created_ms, doc) values ('p', 'Quote:1', $1::bigint, $2::jsonb)`, [T, JSON.stringify(quoteDoc)])
      yield* sql.unsafe(
        `insert into journal_entries (platform_id, id, kind, transaction_id, at_ms, doc) values ('p', 'JournalEntry:1', 'TRANSFER', 'Transaction:1', $1::bigint, $2::jsonb)`,
        [T, JSON.stringify(entryDoc)]
      )
      yield* sql.unsafe(
        `insert into transactions (platform_id, id, created_ms, customer_id, status, type, receiver, sent_currency, sent_amount, doc)
         values ('p', 'Transaction:1', $1::bigint, 'Customer:1', 'PENDING', 'OUTGOING', 'InternalAccount:b', 'USD', 100, '{"transaction":{}}'::jsonb)`,
        [T]
      )
      yield* sql.unsafe(`insert into events (platform_id, id, type, doc) values ('p', 'Event:1', 'T', '{"b": 1, "a": [2]}'::jsonb)`)
      const applied = yield* runMigrations([])
      const quote = yield* sql.unsafe(`select customer_id, currency, source_id, destination_id, doc::json->'plan'->>'customerId' as plan_customer from quotes`)
      const types = yield* sql.unsafe<{ readonly table: string; readonly type: string }>(
        `select c.relname::text as table, format_type(a.atttypid, a.atttypmod) as type from pg_attribute a join pg_class c on c.oid = a.attrelid
         where a.attname = 'doc' and c.relname in ('events', 'transactions', 'quotes', 'journal_entries', 'internal_accounts', 'platform_configs') order by 1`
      )
      const postings = yield* sql.unsafe(`select account, currency, amount::int as amount from journal_account_postings order by account`)
      const volume = () => Effect.map(sql.unsafe<{ readonly amount: number }>(`select amount::int as amount from sent_volumes where platform_id = 'p'`), (rows) => rows.map((row) => row.amount))
      const volumeAfterUpgrade = yield* volume()
      // The kept trigger: a rewrite that changes nothing counted leaves the volume, a failure takes it out, a removal of a counted payment too.
      yield* sql.unsafe(`update transactions set doc = '{"transaction":{"x":1}}'::json where id = 'Transaction:1'`)
      const afterDocRewrite = yield* volume()
      yield* sql.unsafe(`update transactions set status = 'FAILED' where id = 'Transaction:1'`)
      const afterFailure = yield* volume()
      yield* sql.unsafe(`update transactions set status = 'COMPLETED' where id = 'Transaction:1'`)
      const afterRevival = yield* volume()
      yield* sql.unsafe(`delete from transactions where id = 'Transaction:1'`)
      const afterRemoval = yield* volume()
      // No journal trigger is left: the writer writes the postings (./money.ts `post`).
      yield* sql.unsafe(`insert into journal_entries (platform_id, id, kind, at_ms, doc) values ('p', 'JournalEntry:2', 'TRANSFER', 0, $1::json)`, [JSON.stringify(entryDoc)])
      const postingsAfter = yield* sql.unsafe<{ readonly n: number }>(`select count(*)::int as n from journal_account_postings`)
      const event = yield* sql.unsafe<{ readonly doc: string }>(`select doc::text as doc from events`)
      return { applied, quote, types, postings, volumeAfterUpgrade, afterDocRewrite, afterFailure, afterRevival, afterRemoval, postingsAfter: postingsAfter[0]?.n, event: event[0]?.doc }
    })).finally(() => database.dispose())
    // 20 and every migration after it.
    expect(r.applied).toEqual(Object.keys(MIGRATIONS).filter((id) => Number(id.split("_")[0]) >= 20).map((id) => [Number(id.split("_")[0]), id.slice(id.indexOf("_") + 1)]))
    expect(r.quote).toEqual([{
      customer_id: "Customer:1",
      currency: "USD",
      source_id: "InternalAccount:a",
      destination_id: "InternalAccount:b",
      plan_customer: "Customer:1"
    }])
    expect(r.types.map((t) => `${t.table}: ${t.type}`)).toEqual([
      "events: json",
      "internal_accounts: json",
      "journal_entries: json",
      "platform_configs: json",
      "quotes: json",
      "transactions: json"
    ])
    expect(r.postings).toEqual([
      { account: "InternalAccount:a", currency: "USD", amount: -100 },
      { account: "InternalAccount:b", currency: "USD", amount: 100 }
    ])
    expect(r.volumeAfterUpgrade).toEqual([100])
    expect(r.afterDocRewrite).toEqual([100])
    expect(r.afterFailure).toEqual([0])
    expect(r.afterRevival).toEqual([100])
    expect(r.afterRemoval).toEqual([0])
    expect(r.postingsAfter).toBe(2)
    expect(JSON.parse(r.event ?? "null")).toEqual({ a: [2], b: 1 })
  }, 120_000)
})
