/**
 * The PGlite SqlClient (src/adapters/sql/pglite.ts) runs statements as named prepared
 * statements, one call into PGlite each, and sends a transaction's BEGIN with its first
 * statement. These hold it to what `db.query` answered: the same values back for every
 * parameter and column type the store uses, the statement cache past its bound, and
 * transactions that commit, roll back, or end before sending anything.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { protocol } from "@electric-sql/pglite"
import { afterAll, describe, expect, it } from "vitest"
import { bindMessage, pgliteClientLayer } from "../../src/adapters/sql/pglite.js"

const runtime = ManagedRuntime.make(Layer.orDie(pgliteClientLayer(undefined)))
afterAll(() => runtime.dispose())

const run = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => runtime.runPromise(effect)

const setUp = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`create table if not exists client_rows (id text primary key, n bigint, doc jsonb, tags text[], ok boolean, f float8)`)
  yield* sql.unsafe(`delete from client_rows`)
  return sql
})

describe("PGlite client", () => {
  it("answers parameters and columns of every kind the store uses as db.query did", { timeout: 60_000 }, async () => {
    const rows = await run(Effect.gen(function*() {
      const sql = yield* setUp
      const insert = `insert into client_rows (id, n, doc, tags, ok, f) values ($1, $2::bigint, $3::jsonb, $4, $5, $6)`
      yield* sql.unsafe(insert, ["a", 9_007_199_254_740_991, JSON.stringify({ x: [1, "two"] }), ["USD", "EUR"], true, 1.5])
      yield* sql.unsafe(insert, ["b", -3, JSON.stringify(null), [], false, null])
      // The same text again: the prepared statement, not a second Parse.
      yield* sql.unsafe(insert, ["c", 0, JSON.stringify("s"), ["x"], null, -0.25])
      return yield* sql.unsafe<Record<string, unknown>>(`select id, n::text as n, doc, doc::text as text, tags, ok, f from client_rows where id = any($1) order by id`, [["a", "b", "c"]])
    }))
    expect(rows).toEqual([
      { id: "a", n: "9007199254740991", doc: { x: [1, "two"] }, text: `{"x": [1, "two"]}`, tags: ["USD", "EUR"], ok: true, f: 1.5 },
      { id: "b", n: "-3", doc: null, text: "null", tags: [], ok: false, f: null },
      { id: "c", n: "0", doc: "s", text: `"s"`, tags: ["x"], ok: null, f: -0.25 }
    ])
  })

  it("keeps answering past the statement cache's bound (the oldest statements closed and prepared again)", { timeout: 120_000 }, async () => {
    const answers = await run(Effect.gen(function*() {
      const sql = yield* setUp
      const texts = Array.from({ length: 300 }, (_, i) => `select $1::int + ${i} as v`)
      const first = yield* Effect.forEach(texts, (text) => sql.unsafe<{ readonly v: number }>(text, [1]))
      const again = yield* Effect.forEach(texts.slice(0, 10), (text) => sql.unsafe<{ readonly v: number }>(text, [2]))
      return [first.map((r) => r[0]?.v), again.map((r) => r[0]?.v)]
    }))
    expect(answers[0]).toEqual(Array.from({ length: 300 }, (_, i) => 1 + i))
    expect(answers[1]).toEqual(Array.from({ length: 10 }, (_, i) => 2 + i))
  })

  it("a statement prepared before DDL changed its result columns answers after it", { timeout: 60_000 }, async () => {
    const rows = await run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe(`create table stale_rows (id text primary key)`)
      yield* sql.unsafe(`insert into stale_rows (id) values ($1)`, ["a"])
      const text = `select * from stale_rows where id = $1`
      const before = yield* sql.unsafe<Record<string, unknown>>(text, ["a"])
      yield* sql.unsafe(`alter table stale_rows add column n int default 7`)
      return [before, yield* sql.unsafe<Record<string, unknown>>(text, ["a"])]
    }))
    expect(rows).toEqual([[{ id: "a" }], [{ id: "a", n: 7 }]])
  })

  it("a transaction commits its writes, rolls them back on failure, and one that sends nothing leaves no transaction open", { timeout: 60_000 }, async () => {
    const outcome = await run(Effect.gen(function*() {
      const sql = yield* setUp
      const serializable = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql.withTransaction(effect).pipe(Effect.provideService(SqlClient.BeginTransaction, "BEGIN ISOLATION LEVEL SERIALIZABLE"))
      const ids = () => Effect.map(sql.unsafe<{ readonly id: string }>(`select id from client_rows order by id`), (rs) => rs.map((r) => r.id))
      const insert = (id: string) => sql.unsafe(`insert into client_rows (id) values ($1)`, [id])

      yield* serializable(insert("kept"))
      // Failed after a write: nothing of it stays.
      const failed = yield* Effect.exit(serializable(Effect.andThen(insert("dropped"), Effect.fail("no"))))
      // Ended before any statement, either way: nothing was sent, and what follows runs outside a transaction.
      yield* serializable(Effect.void)
      const failedEmpty = yield* Effect.exit(serializable(Effect.fail("nothing sent")))
      const level = yield* sql.unsafe<{ readonly level: string }>(`select current_setting('transaction_isolation') as level`)
      // The isolation level the BEGIN asked for is the transaction's.
      const inside = yield* serializable(sql.unsafe<{ readonly level: string }>(`select current_setting('transaction_isolation') as level`))
      // A statement that fails first in a transaction (with the BEGIN in its call) rolls it back.
      const conflict = yield* Effect.exit(serializable(Effect.andThen(insert("kept"), insert("never"))))
      // A nested unit of work (a savepoint) as the first statement.
      yield* serializable(sql.withTransaction(insert("nested")))
      return {
        failed: failed._tag,
        failedEmpty: failedEmpty._tag,
        conflict: conflict._tag,
        ids: yield* ids(),
        outside: level[0]?.level,
        inside: inside[0]?.level
      }
    }))
    expect(outcome).toEqual({
      failed: "Failure",
      failedEmpty: "Failure",
      conflict: "Failure",
      ids: ["kept", "nested"],
      outside: "read committed",
      inside: "serializable"
    })
  })

  it("prepares BEGIN, COMMIT, ROLLBACK and savepoints once per connection, however many transactions run", { timeout: 60_000 }, async () => {
    const prepared = await run(Effect.gen(function*() {
      const sql = yield* setUp
      const serializable = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql.withTransaction(effect).pipe(Effect.provideService(SqlClient.BeginTransaction, "BEGIN ISOLATION LEVEL SERIALIZABLE"))
      for (let i = 0; i < 5; i++) {
        yield* serializable(sql.unsafe(`insert into client_rows (id) values ($1)`, [`committed ${i}`]))
        yield* Effect.exit(serializable(Effect.andThen(sql.unsafe(`insert into client_rows (id) values ($1)`, [`rolled back ${i}`]), Effect.fail("no"))))
        yield* serializable(sql.withTransaction(sql.unsafe(`insert into client_rows (id) values ($1)`, [`nested ${i}`])))
      }
      const kept = yield* sql.unsafe<{ readonly id: string }>(`select id from client_rows order by id`)
      const statements = yield* sql.unsafe<{ readonly statement: string }>(
        `select statement from pg_prepared_statements where statement ~* '^(begin|commit|rollback|savepoint|release)' order by statement`
      )
      return { kept: kept.map((r) => r.id), statements: statements.map((r) => r.statement) }
    }))
    expect(prepared.kept).toEqual([0, 1, 2, 3, 4].flatMap((i) => [`committed ${i}`, `nested ${i}`]).sort())
    // One named statement per text: parsed once, bound on every later transaction.
    expect(prepared.statements).toEqual(["BEGIN ISOLATION LEVEL SERIALIZABLE", "COMMIT", "RELEASE SAVEPOINT effect_sql_1", "ROLLBACK", "SAVEPOINT effect_sql_1"])
  })

  it("sends text parameters of any length and script byte for byte (its own Bind message)", { timeout: 120_000 }, async () => {
    // Text PostgreSQL can hold: any Unicode but NUL, whole code points (no lone surrogates).
    const text = fc.string({ unit: "grapheme", maxLength: 300 }).map((s) => s.replaceAll("\u0000", ""))
    const long = fc.integer({ min: 0, max: 20_000 }).map((n) => "é€𝄞a".repeat(n))
    const value = fc.option(fc.oneof(text, long), { nil: null })
    await fc.assert(
      fc.asyncProperty(fc.tuple(value, value, value), async (values) => {
        const rows = await run(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return yield* sql.unsafe<Record<string, unknown>>(`select $1::text as a, $2::text as b, $3::text as c`, values)
        }))
        expect(rows).toEqual([{ a: values[0], b: values[1], c: values[2] }])
      }),
      { numRuns: 60 }
    )
  })

  it("its Bind message says what PGlite's serializer says, in the protocol's shorter form", () => {
    const ours = bindMessage("payments_1", ["a", null, "ü€"])
    const theirs = protocol.serialize.bind({ statement: "payments_1", values: ["a", null, "ü€"] })
    // Theirs names a text format code per parameter (2 bytes each); ours names none, which
    // the protocol reads as text for all. Everything else is the same bytes: type, portal,
    // statement, the parameters (lengths, bytes, the NULL) and no result format codes (text).
    const head = 1 + 4 + 1 + "payments_1".length + 1
    expect(ours.length).toBe(theirs.length - 2 * 3)
    expect(Buffer.from(ours.subarray(5, head)).equals(Buffer.from(theirs.subarray(5, head)))).toBe(true)
    expect(Buffer.from(ours.subarray(head + 2)).equals(Buffer.from(theirs.subarray(head + 2 + 2 * 3)))).toBe(true)
    expect([ours[0], ours[head], ours[head + 1]]).toEqual([theirs[0], 0, 0])
  })

  it("writes the messages before and after its Bind message into the same buffer, byte for byte", () => {
    const before = [protocol.serialize.close({ type: "S", name: "payments_0" }), protocol.serialize.execute({})]
    const after = protocol.serialize.sync()
    const alone = bindMessage("payments_2", ["x", null, "é".repeat(300)])
    const joined = bindMessage("payments_2", ["x", null, "é".repeat(300)], before, after)
    expect(Buffer.from(joined).equals(Buffer.concat([...before, alone, after]))).toBe(true)
  })
})
