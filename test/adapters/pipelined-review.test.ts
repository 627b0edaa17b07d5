/**
 * What a unit of work on a connection of the store's own (src/adapters/sql/direct.ts,
 * `PipelinedConnection`, `commitWith`) must not commit, and what it must not leak, where
 * COMMIT is queued with the last statement without waiting for its answer:
 * - a last statement the driver cannot even send (its parameters fail to encode: it
 *   fails before it is queued) must not leave a COMMIT to commit the work's earlier
 *   writes without it;
 * - a last statement that cannot be built (`last` throws) rolls the transaction back,
 *   and the connection is neither leaked (`keptCount`) nor left in a transaction.
 */
import { PgClient, PgConnection } from "@effect/sql-pg"
import { Deferred, Effect, Exit, Fiber, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import net from "node:net"
import { describe, expect, it } from "vitest"
import { makeDirectTransactions } from "../../src/adapters/sql/direct.js"
import { adminQuery, migratedDatabase } from "../support/databases.js"


const application = "payments-service (pipelined review test)"

/** `body` with transactions on one connection of their own (`pipelined`), or on the pool's pinned ones. */
const withDirect = <A, E>(
  url: string,
  pipelined: boolean,
  body: (direct: ReturnType<typeof makeDirectTransactions>, sql: SqlClient.SqlClient) => Effect.Effect<A, E, never>
) =>
  Effect.runPromise(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = makeDirectTransactions(sql, "BEGIN ISOLATION LEVEL SERIALIZABLE", {
      connections: 1,
      idleMillis: 60_000,
      connect: pipelined ? PgConnection.make({ url: Redacted.make(url), applicationName: application, multiplex: true }) : undefined
    })
    return yield* Effect.ensuring(body(direct, sql), direct.close)
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })), Effect.scoped, Effect.timeout("30 seconds")))

const clockOf = (url: string, platformId: string) =>
  adminQuery<{ readonly offset_ms: string }>(url, "select offset_ms::text from platform_clocks where platform_id = $1", [platformId])
    .then((rows) => rows.map((r) => Number(r.offset_ms)))

describe.each([true, false])("PostgreSQL: the last statement with COMMIT (a connection of the store's own: %s)", (pipelined) => {
  it("a last statement whose parameters cannot be encoded (it is never sent) commits nothing of the work", async () => {
    const url = await migratedDatabase()
    const id = `review-encode-${pipelined}`
    const outcome = await withDirect(url, pipelined, (direct, sql) =>
      Effect.gen(function*() {
        const failed = yield* Effect.exit(direct.withTransaction(
          sql`insert into platform_clocks (platform_id, offset_ms) values (${id}, 1)`,
          undefined,
          () => ({
            // An object the driver cannot infer a type for: it fails to encode, before it is queued.
            text: "select $1 as n",
            params: [{ not: "encodable" }],
            committed: () => undefined,
            failed: Effect.failCause
          })
        ))
        // The connection serves the next transaction, in a transaction of its own.
        yield* direct.withTransaction(sql`insert into platform_clocks (platform_id, offset_ms) values (${`${id}-after`}, 2)`)
        return { failed: Exit.isFailure(failed), kept: direct.keptCount() }
      }))
    expect(outcome).toEqual({ failed: true, kept: 1 })
    expect(await clockOf(url, id)).toEqual([])
    expect(await clockOf(url, `${id}-after`)).toEqual([2])
  }, 60_000)

  it("a last statement that cannot be built (`last` throws) commits nothing, and the connection is neither leaked nor left in a transaction", async () => {
    const url = await migratedDatabase()
    const id = `review-throw-${pipelined}`
    const outcome = await withDirect(url, pipelined, (direct, sql) =>
      Effect.gen(function*() {
        const failed = yield* Effect.exit(direct.withTransaction(
          sql`insert into platform_clocks (platform_id, offset_ms) values (${id}, 1)`,
          undefined,
          () => {
            throw new Error("no last statement")
          }
        ))
        const afterFailure = direct.keptCount()
        yield* direct.withTransaction(sql`insert into platform_clocks (platform_id, offset_ms) values (${`${id}-after`}, 2)`)
        return { failed: Exit.isFailure(failed), afterFailure, kept: direct.keptCount() }
      }))
    expect(outcome.failed).toBe(true)
    expect(outcome.afterFailure).toBeLessThanOrEqual(1)
    expect(outcome.kept).toBe(1)
    expect(await clockOf(url, id)).toEqual([])
    expect(await clockOf(url, `${id}-after`)).toEqual([2])
    // Nothing of this test's is left in a transaction.
    const open = await adminQuery<{ readonly n: number }>(
      url,
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'"
    )
    expect(open[0]?.n).toBe(0)
  }, 60_000)
})

describe("PostgreSQL: a connection of the store's own that dies mid-transaction, or outlives close", () => {
  const terminate = (url: string) =>
    adminQuery<{ readonly n: number }>(
      url,
      "select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and application_name = $1",
      [application]
    )

  it("a session ended after BEGIN went (mid-transaction) commits nothing, is not run again, and is not kept", async () => {
    const url = await migratedDatabase()
    let runs = 0
    const outcome = await withDirect(url, true, (direct, sql) =>
      Effect.gen(function*() {
        const failed = yield* Effect.exit(direct.withTransaction(Effect.gen(function*() {
          runs++
          yield* sql`insert into platform_clocks (platform_id, offset_ms) values ('review-died', 1)`
          yield* Effect.promise(() => terminate(url))
          yield* sql`insert into platform_clocks (platform_id, offset_ms) values ('review-died-2', 2)`
        })))
        const afterDeath = direct.keptCount()
        yield* direct.withTransaction(sql`insert into platform_clocks (platform_id, offset_ms) values ('review-after-death', 3)`)
        return { failed: Exit.isFailure(failed), afterDeath, kept: direct.keptCount() }
      }))
    expect(outcome).toEqual({ failed: true, afterDeath: 0, kept: 1 })
    expect(runs).toBe(1)
    expect(await clockOf(url, "review-died")).toEqual([])
    expect(await clockOf(url, "review-after-death")).toEqual([3])
  }, 60_000)

  it("close with a unit of work in flight: it commits, then its connection is closed rather than kept", async () => {
    const url = await migratedDatabase()
    const outcome = await withDirect(url, true, (direct, sql) =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const working = yield* Effect.forkChild(direct.withTransaction(Effect.gen(function*() {
          yield* sql`insert into platform_clocks (platform_id, offset_ms) values ('review-closing', 1)`
          yield* Deferred.succeed(started, undefined)
          yield* Deferred.await(release)
        })))
        yield* Deferred.await(started)
        yield* direct.close
        const duringClose = direct.keptCount()
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(working)
        // Its session ends once the server has read the Terminate (asked again until then, a bounded number of times).
        const sessions = yield* Effect.promise(async () => {
          let n: number | undefined
          for (let i = 0; i < 100 && n !== 0; i++) {
            if (i > 0) await new Promise((resolve) => setTimeout(resolve, 20))
            n = (await adminQuery<{ readonly n: number }>(
              url,
              "select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = $1",
              [application]
            ))[0]?.n
          }
          return n
        })
        return { duringClose, kept: direct.keptCount(), sessions }
      }))
    expect(outcome).toEqual({ duringClose: 1, kept: 0, sessions: 0 })
    expect(await clockOf(url, "review-closing")).toEqual([1])
  }, 60_000)
})

/**
 * Transactions on one connection of their own to `url`; `alone`: its sessions default to
 * SERIALIZABLE, so a transaction whose one statement is its last sends it alone.
 */
const oneOwnConnection = (sql: SqlClient.SqlClient, url: string, alone: boolean) =>
  makeDirectTransactions(sql, "BEGIN ISOLATION LEVEL SERIALIZABLE", {
    connections: 1,
    idleMillis: 60_000,
    connect: PgConnection.make({
      url: Redacted.make(url),
      applicationName: application,
      multiplex: true,
      ...(alone ? { startupParameters: { default_transaction_isolation: "serializable" } } : {})
    }),
    serializableSessions: alone
  })

// ------------------------------------------------------------------ a connection cut after COMMIT ran

/**
 * A loopback proxy to the database at `url`. Once `cutAfterCommit` is called, it passes the
 * client's next writes on, holds the server's answers back until they hold COMMIT's
 * (CommandComplete "COMMIT": the transaction committed), then closes the client's side
 * without them: the client sees its connection closed before any answer of that write.
 */
const cuttingProxy = async (url: string, answered = "COMMIT") => {
  const target = new URL(url)
  let armed = false
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname)
    let held: Array<Buffer> = []
    let cutting = false
    client.on("data", (chunk: Buffer) => {
      if (armed) {
        armed = false
        cutting = true
      }
      upstream.write(chunk)
    })
    upstream.on("data", (chunk: Buffer) => {
      if (!cutting) return void client.write(chunk)
      held.push(chunk)
      if (Buffer.concat(held).includes(Buffer.from(`${answered}\u0000`))) {
        held = []
        client.destroy()
        upstream.destroy()
      }
    })
    client.on("error", () => upstream.destroy())
    upstream.on("error", () => client.destroy())
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("no proxy port")
  const proxied = new URL(url)
  proxied.hostname = "127.0.0.1"
  proxied.port = String(address.port)
  return {
    url: proxied.toString(),
    cutAfterCommit: () => {
      armed = true
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

describe("PostgreSQL: a connection cut after its BEGIN, last statement and COMMIT went (or its one statement, alone)", () => {
  // Alone: on sessions that default to SERIALIZABLE, a unit of work whose only statement is
  // its last sends it without BEGIN or COMMIT (./direct.ts `alone`); it is cut once the
  // server answered that statement (it committed).
  it.each([false, true])("the unit of work is not run again (it may have committed: its outcome is unknown), so it is never applied twice (alone: %s)", async (alone) => {
    const url = await migratedDatabase()
    await adminQuery(url, "insert into platform_clocks (platform_id, offset_ms) values ('review-cut', 0)")
    const proxy = await cuttingProxy(url, alone ? "UPDATE 1" : "COMMIT")
    let taken = 0
    try {
      const outcome = await Effect.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const direct = oneOwnConnection(sql, proxy.url, alone)
        const once = () =>
          direct.withTransaction(Effect.void, undefined, () => {
            taken++
            return {
              text: "update platform_clocks set offset_ms = offset_ms + 1 where platform_id = 'review-cut'",
              params: [],
              committed: () => undefined,
              failed: Effect.failCause
            }
          })
        // A first unit of work opens the connection; the next one's only write is cut after COMMIT ran.
        yield* once()
        proxy.cutAfterCommit()
        const cut = yield* Effect.exit(once())
        return yield* Effect.ensuring(Effect.succeed({ cut: Exit.isFailure(cut) }), direct.close)
      }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })), Effect.scoped, Effect.timeout("30 seconds")))
      // Its outcome was unknown to it: it answers a failure, and it ran once (the first unit of work, then it).
      expect({ ...outcome, taken, clock: await clockOf(url, "review-cut") }).toEqual({ cut: true, taken: 2, clock: [2] })
    } finally {
      await proxy.close()
    }
  }, 60_000)
})

describe("PostgreSQL: a unit of work sent alone on a connection of the store's own that died while idle", () => {
  // Alone (./direct.ts `alone`): its one statement, on a session that defaults to
  // SERIALIZABLE, without BEGIN or COMMIT. A session that died while idle (the server
  // restarted, or ended it) ran nothing of it: it runs on another connection, as a unit of
  // work whose BEGIN found its session dead does.
  it("commits once, on another connection", async () => {
    const url = await migratedDatabase()
    await adminQuery(url, "insert into platform_clocks (platform_id, offset_ms) values ('review-alone-dead', 0)")
    const outcome = await Effect.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const direct = oneOwnConnection(sql, url, true)
      const once = () =>
        direct.withTransaction(Effect.void, undefined, () => ({
          text: "update platform_clocks set offset_ms = offset_ms + 1 where platform_id = 'review-alone-dead'",
          params: [],
          committed: () => undefined,
          failed: Effect.failCause
        }))
      // A first unit of work opens the connection; its session is then ended while idle.
      yield* once()
      const ended = yield* Effect.promise(() =>
        adminQuery<{ readonly n: number }>(
          url,
          "select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and application_name = $1",
          [application]
        )
      )
      // Ended, not only signalled (asked again until then, a bounded number of times): the
      // client has read the closed socket by the time the server no longer lists the session.
      yield* Effect.promise(async () => {
        for (let i = 0; i < 100; i++) {
          const [row] = await adminQuery<{ readonly n: number }>(
            url,
            "select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = $1",
            [application]
          )
          if (row?.n === 0) return
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      })
      const next = yield* Effect.exit(once())
      return yield* Effect.ensuring(Effect.succeed({ ended: ended[0]?.n, next: Exit.isSuccess(next), kept: direct.keptCount() }), direct.close)
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })), Effect.scoped, Effect.timeout("30 seconds")))
    expect(outcome).toEqual({ ended: 1, next: true, kept: 1 })
    expect(await clockOf(url, "review-alone-dead")).toEqual([2])
  }, 60_000)
})
