/**
 * `npm start` on each persistent store, as a newcomer runs it: real child processes
 * (`node --import tsx src/server/main.ts`) on port 0, talking HTTP.
 *
 * - PAYMENTS_DATA_DIR (PGlite on disk): the banner names it; whatever was acknowledged
 *   (201s, the sandbox clock, a scheduled move) survives a `kill -9`; one process per
 *   data directory (a second one refuses to start and leaves the first one's lock
 *   alone); a clean stop releases the lock.
 * - DATABASE_URL (PostgreSQL, a fresh database of the run's cluster): the banner hides
 *   the password (in the authority or as `?password=`); two processes on one database
 *   behave as one server: no stale reads, one winner for racing duplicates and racing
 *   Idempotency-Keys, one sandbox clock per platform, and every scheduled move
 *   (micro-entry validation, LIVENESS) applied exactly once although both processes'
 *   schedulers (and the advance call) race for it.
 * - Configuration errors refuse to start with a message naming the problem.
 *
 * Every child is killed after each test, also when the test fails.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, inject, it } from "vitest"
import { individual, readReply, usdAccount } from "../support/api.js"
import { createDatabase, psql } from "../support/postgres.js"

import { baseOf, keepAcrossTests, type Server, start, tempDir } from "../support/server.js"

/** `kill -9`, and wait until the process is gone. */
const kill9 = async (server: Server) => {
  server.child.kill("SIGKILL")
  await server.exited
}

const storeLine = (banner: string): string => /Store:\s+(.*)/.exec(banner)?.[1] ?? ""

// ---------------------------------------------------------------- HTTP

const AUTH = `Basic ${Buffer.from("sandbox_client_id:sandbox_client_secret").toString("base64")}`

interface Reply {
  readonly status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test bodies are inspected freely
  readonly body: any
}

const call = async (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: AUTH, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return readReply(res)
}

const created = async (base: string, path: string, body: unknown, headers?: Record<string, string>) => {
  const r = await call(base, "POST", path, body, headers)
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  return r.body
}

const byId = <T extends { readonly id: string }>(xs: ReadonlyArray<T>) => [...xs].sort((x, y) => (x.id < y.id ? -1 : 1))

const ids = (list: Reply) => (list.body.data as Array<{ id: string }>).map((x) => x.id).sort()

// ---------------------------------------------------------------- PGlite on disk

describe("npm start with PAYMENTS_DATA_DIR (PGlite on disk)", () => {
  it("keeps every acknowledged write across kill -9, and one process owns the directory", async () => {
    const dir = join(tempDir("payments-data-"), "data")

    // Without the run's migrated dump: this server migrates its empty directory itself.
    const first = start({ PAYMENTS_DATA_DIR: dir, PAYMENTS_PGLITE_TEMPLATE: "" })
    const banner = await first.banner
    expect(storeLine(banner)).toMatch(/PGlite/)
    expect(storeLine(banner)).toContain(dir)
    const base1 = baseOf(banner)

    const customer = await created(base1, "/customers", individual("Ada Lovelace", { platformCustomerId: "durable-1" }))
    const account = await created(base1, "/customers/external-accounts", usdAccount(customer.id, "123456789"))
    // A scheduled move (micro-entry validation, due 3 sandbox days later) and a moved clock are state too.
    const pending = await created(base1, "/customers/external-accounts", usdAccount(customer.id, "901901901", { routingNumber: "021000901" }))
    expect(pending.status).toBe("PENDING")
    expect((await call(base1, "POST", "/sandbox/clock/advance", { seconds: 86_400 })).body.offsetSeconds).toBe(86_400)
    // More acknowledged writes, racing each other, right before the kill.
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => created(base1, "/customers", individual(`Burst ${i}`))))
    await kill9(first)
    expect(first.child.signalCode).toBe("SIGKILL")

    const second = start({ PAYMENTS_DATA_DIR: dir })
    const base2 = baseOf(await second.banner)
    expect(storeLine(await second.banner)).toContain(dir)
    // Another process on the same directory while this one runs (checked below, once it has given up).
    const intruder = start({ PAYMENTS_DATA_DIR: dir })

    const gotCustomer = await call(base2, "GET", `/customers/${customer.id}`)
    expect(gotCustomer.status).toBe(200)
    expect(gotCustomer.body).toEqual(customer)
    const gotAccount = await call(base2, "GET", `/customers/external-accounts/${account.id}`)
    expect(gotAccount.status).toBe(200)
    expect(gotAccount.body).toEqual(account)

    const customers = await call(base2, "GET", "/customers?limit=100")
    expect(customers.status).toBe(200)
    expect(ids(customers)).toEqual([customer.id, ...burst.map((c) => c.id)].sort())
    expect(customers.body.totalCount).toBe(13)
    const accounts = await call(base2, "GET", `/customers/external-accounts?customerId=${customer.id}`)
    expect(byId(accounts.body.data)).toEqual(byId([account, pending]))
    // The clock kept its offset, and the scheduled move is still scheduled: due two days later.
    expect((await call(base2, "GET", "/sandbox/clock")).body.offsetSeconds).toBe(86_400)
    expect((await call(base2, "POST", "/sandbox/clock/advance", { seconds: 2 * 86_400 })).body.offsetSeconds).toBe(3 * 86_400)
    expect((await call(base2, "GET", `/customers/external-accounts/${pending.id}`)).body.status).toBe("ACTIVE")
    // What it knows is enforced too: the same account again is a duplicate, the same platformCustomerId a conflict.
    const dup = await call(base2, "POST", "/customers/external-accounts", usdAccount(customer.id, "123-456-789"))
    expect(dup.status).toBe(409)
    expect(dup.body.code).toBe("DUPLICATE_EXTERNAL_ACCOUNT")
    expect((await call(base2, "POST", "/customers", individual("Again", { platformCustomerId: "durable-1" }))).status).toBe(409)

    // The second process on the same directory while this one runs (started above): refused, with a message naming the directory.
    await expect(intruder.banner).rejects.toThrow(/server exited/)
    const code = await intruder.exited
    expect(code).not.toBe(0)
    expect(code).not.toBe(null)
    const refusal = intruder.stderr() + intruder.stdout()
    expect(refusal).toContain(dir)
    expect(refusal).toContain(`in use by process ${second.child.pid}`)
    expect(intruder.stdout()).not.toContain("listening")
    // A refusal to start is an error: it belongs on stderr, like the configuration errors below.
    expect.soft(intruder.stderr(), "the refusal is printed on stdout, not stderr").toContain(dir)

    // The refusal left the owner's lock and data alone: it still serves, and still owns the directory.
    const after = await created(base2, "/customers", individual("After The Intruder"))
    expect((await call(base2, "GET", `/customers/${after.id}`)).status).toBe(200)
    expect(readFileSync(join(dir, "payments-service.lock"), "utf8").trim()).toBe(String(second.child.pid))

    // A clean stop (SIGTERM) releases the directory.
    second.child.kill("SIGTERM")
    expect(await second.exited).not.toBe(null)
    expect(existsSync(join(dir, "payments-service.lock"))).toBe(false)
    // Three servers on a directory on disk, the first migrating it from empty: a minute was
    // too little on a 2-core machine under a load of about 20 from other work.
  }, 120_000)
})

// ---------------------------------------------------------------- PostgreSQL, two processes

describe("npm start with DATABASE_URL (PostgreSQL), two processes on one database", () => {
  const PASSWORD = "s3cret-Pa55word"
  /** A fresh database of the run's cluster, named with a password (the test cluster trusts loopback, so it is not checked). */
  const databaseUrl = async () => {
    const url = new URL(await createDatabase(inject("databaseAdminUrl")))
    url.password = PASSWORD
    return url.toString()
  }

  let servers: Promise<{ a: string; b: string; url: string; banners: ReadonlyArray<string>; procs: ReadonlyArray<Server> }> | undefined
  /** Both servers, started together (so they migrate the fresh database concurrently), shared by the tests below. */
  const twoServers = () =>
    (servers ??= (async () => {
      const url = await databaseUrl()
      // The default sandbox platform, plus a Travel Rule one (FIRST_PARTY wallets, ownership challenges).
      const config = join(tempDir("payments-config-"), "platforms.json")
      writeFileSync(config, JSON.stringify({
        platforms: [
          { id: "sandbox", clientId: "sandbox_client_id", clientSecret: "sandbox_client_secret" },
          { id: "travel", clientId: "travel_client_id", clientSecret: "travel_client_secret", travelRule: true }
        ]
      }))
      const procs = [start({ DATABASE_URL: url, PAYMENTS_CONFIG: config }), start({ DATABASE_URL: url, PAYMENTS_CONFIG: config })]
      const banners = await Promise.all(procs.map((p) => p.banner))
      return { a: baseOf(banners[0]!), b: baseOf(banners[1]!), url, banners, procs }
    })())
  // The shared servers live for the whole block: out of the per-test cleanup, killed after the block.
  const adopt = async () => {
    const s = await twoServers()
    for (const p of s.procs) keepAcrossTests(p)
    return s
  }
  afterAll(async () => {
    if (servers === undefined) return
    const s = await servers.catch(() => undefined)
    for (const p of s?.procs ?? []) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL")
  })

  it("the banner names PostgreSQL and the database, never the password", async () => {
    const { banners, url, procs } = await adopt()
    const u = new URL(url)
    for (const banner of banners) {
      expect(storeLine(banner)).toMatch(/^PostgreSQL /)
      expect(storeLine(banner)).toContain(`${u.hostname}:${u.port}${u.pathname}`)
      expect(banner).not.toContain(PASSWORD)
    }
    for (const p of procs) {
      expect(p.stdout()).not.toContain(PASSWORD)
      expect(p.stderr()).not.toContain(PASSWORD)
    }
  }, 45_000)

  it("a password given as a URL parameter (libpq's ?password=, which the driver honours) is not printed either", async () => {
    const { url } = await adopt()
    const u = new URL(url)
    u.password = ""
    u.searchParams.set("password", PASSWORD)
    const server = start({ DATABASE_URL: u.toString() })
    const banner = await server.banner
    expect(storeLine(banner)).toMatch(/^PostgreSQL /)
    // It serves on the same database as the others.
    expect((await call(baseOf(banner), "GET", "/customers?limit=1")).status).toBe(200)
    expect(banner).not.toContain(PASSWORD)
  }, 45_000)

  it("what one process writes the other reads at once (no stale reads)", async () => {
    const { a, b } = await adopt()
    for (let i = 0; i < 8; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a]
      const customer = await created(writer, "/customers", individual(`Fresh Read ${i}`, { platformCustomerId: `fresh-${i}` }))
      const got = await call(reader, "GET", `/customers/${customer.id}`)
      expect(got.status).toBe(200)
      expect(got.body).toEqual(customer)
      const listed = await call(reader, "GET", `/customers?platformCustomerId=fresh-${i}`)
      expect(listed.body.data).toEqual([customer])
      const account = await created(reader, "/customers/external-accounts", usdAccount(customer.id, `55500${i}`))
      expect((await call(writer, "GET", `/customers/external-accounts/${account.id}`)).body).toEqual(account)
      expect((await call(writer, "DELETE", `/customers/external-accounts/${account.id}`)).status).toBe(204)
      expect((await call(reader, "GET", `/customers/external-accounts/${account.id}`)).status).toBe(404)
    }
  }, 45_000)

  it("racing creates of one external account through both processes: one 201, every other answer 409 DUPLICATE_EXTERNAL_ACCOUNT", async () => {
    const { a, b } = await adopt()
    const customer = await created(a, "/customers", individual("Race Owner"))
    for (let round = 0; round < 3; round++) {
      // Equivalent bodies, not identical ones: spaces and dashes in the number do not make another account.
      const numbers = ["987654321", "987-654-321", "987 654 321"]
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          call(i % 2 === 0 ? a : b, "POST", "/customers/external-accounts", usdAccount(customer.id, `${numbers[i % 3]}${round}`)))
      )
      const wins = answers.filter((r) => r.status === 201)
      const losses = answers.filter((r) => r.status !== 201)
      expect(wins, JSON.stringify(answers.map((r) => [r.status, r.body?.code]))).toHaveLength(1)
      for (const r of losses) {
        expect(r.status, JSON.stringify(r.body)).toBe(409)
        expect(r.body.code).toBe("DUPLICATE_EXTERNAL_ACCOUNT")
      }
      for (const base of [a, b]) {
        const list = await call(base, "GET", `/customers/external-accounts?customerId=${customer.id}&limit=100`)
        expect(list.body.data.filter((x: { id: string }) => x.id === wins[0]!.body.id)).toHaveLength(1)
        expect(list.body.totalCount).toBe(round + 1)
      }
    }
  }, 45_000)

  it("racing creates of one platformCustomerId through both processes: one customer", async () => {
    const { a, b } = await adopt()
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call(i % 2 === 0 ? a : b, "POST", "/customers", individual(`Clash ${i}`, { platformCustomerId: "clash-1" })))
    )
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1)
    for (const r of answers.filter((x) => x.status !== 201)) {
      expect(r.status, JSON.stringify(r.body)).toBe(409)
      expect(r.body.code).toBe("CONFLICT")
    }
    for (const base of [a, b]) expect((await call(base, "GET", "/customers?platformCustomerId=clash-1")).body.totalCount).toBe(1)
  }, 45_000)

  it("one Idempotency-Key sent to both processes at once: one resource, identical answers", async () => {
    const { a, b } = await adopt()
    const before = (await call(a, "GET", "/customers?limit=1")).body.totalCount as number
    const key = { "idempotency-key": "two-processes-one-key" }
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call(i % 2 === 0 ? a : b, "POST", "/customers", individual("Idem Across"), key))
    )
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 201))
    for (const r of answers) expect(r.body).toEqual(answers[0]!.body)
    for (const base of [a, b]) {
      expect((await call(base, "GET", "/customers?limit=1")).body.totalCount).toBe(before + 1)
      expect((await call(base, "GET", `/customers/${answers[0]!.body.id}`)).body).toEqual(answers[0]!.body)
    }

    // The same for an external account, through both processes.
    const owner = answers[0]!.body.id as string
    const accountKey = { "idempotency-key": "two-processes-one-account-key" }
    const accountAnswers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(i % 2 === 0 ? b : a, "POST", "/customers/external-accounts", usdAccount(owner, "444333222"), accountKey))
    )
    expect(accountAnswers.map((r) => r.status)).toEqual(accountAnswers.map(() => 201))
    for (const r of accountAnswers) expect(r.body).toEqual(accountAnswers[0]!.body)
    expect((await call(b, "GET", `/customers/external-accounts?customerId=${owner}`)).body.totalCount).toBe(1)

    // And the key stays bound to its request in both processes.
    const reused = await call(b, "POST", "/customers", individual("Another Body"), key)
    expect(reused.status).toBe(409)
    expect(reused.body.code).toBe("CONFLICT")
  }, 45_000)

  it("one sandbox clock: an advance through one process is seen by the other, and each scheduled move is applied once", async () => {
    const { a, b, url } = await adopt()
    const clockA0 = await call(a, "GET", "/sandbox/clock")
    const clockB0 = await call(b, "GET", "/sandbox/clock")
    expect(clockA0.status).toBe(200)
    expect(clockB0.body.offsetSeconds).toBe(clockA0.body.offsetSeconds)
    const offset0 = clockA0.body.offsetSeconds as number

    // Micro-entry validation (docs/sandbox.md): routing ...901 validates after 3 days, ...902 fails.
    const customer = await created(a, "/customers", individual("Micro Entries"))
    const validating = await Promise.all(
      Array.from({ length: 4 }, (_, i) => created(i % 2 === 0 ? a : b, "/customers/external-accounts", usdAccount(customer.id, `90100${i}`, { routingNumber: "021000901" })))
    )
    const failing = await created(b, "/customers/external-accounts", usdAccount(customer.id, "902000", { routingNumber: "021000902" }))
    for (const acc of [...validating, failing]) expect(acc.status).toBe("PENDING")

    // Not due yet: two days later, both processes still say PENDING.
    const twoDays = await call(b, "POST", "/sandbox/clock/advance", { seconds: 2 * 86_400 })
    expect(twoDays.status).toBe(200)
    expect(twoDays.body.offsetSeconds).toBe(offset0 + 2 * 86_400)
    expect((await call(a, "GET", "/sandbox/clock")).body.offsetSeconds).toBe(offset0 + 2 * 86_400)
    for (const base of [a, b]) {
      expect((await call(base, "GET", `/customers/external-accounts/${validating[0].id}`)).body.status).toBe("PENDING")
    }

    // Now due: advance through b while a advances by zero (its own pass) at the same time; both background schedulers run too.
    const [advanced, zero] = await Promise.all([
      call(b, "POST", "/sandbox/clock/advance", { seconds: 86_400 + 60 }),
      call(a, "POST", "/sandbox/clock/advance", { seconds: 0 })
    ])
    expect(advanced.status).toBe(200)
    expect(zero.status).toBe(200)
    const offset = offset0 + 3 * 86_400 + 60
    expect(advanced.body.offsetSeconds).toBe(offset)
    const seenByA = await call(a, "GET", "/sandbox/clock")
    expect(seenByA.body.offsetSeconds).toBe(offset)
    // `now` agrees too (both processes run on this machine's clock).
    expect(Math.abs(Date.parse(seenByA.body.now) - Date.parse((await call(b, "GET", "/sandbox/clock")).body.now))).toBeLessThan(5_000)

    // The advance through b returned after applying what fell due: b sees the moves at once, and so does a.
    for (const base of [b, a]) {
      for (const acc of validating) expect((await call(base, "GET", `/customers/external-accounts/${acc.id}`)).body.status).toBe("ACTIVE")
      expect((await call(base, "GET", `/customers/external-accounts/${failing.id}`)).body.status).toBe("INACTIVE")
    }
    const viaA = await call(a, "GET", `/customers/external-accounts?customerId=${customer.id}&limit=100`)
    const viaB = await call(b, "GET", `/customers/external-accounts?customerId=${customer.id}&limit=100`)
    expect(viaA.body).toEqual(viaB.body)

    // Give both background schedulers a few more passes: nothing is applied a second time.
    await new Promise((resolve) => setTimeout(resolve, 2_200))
    const moved = [...validating, failing].map((x) => `'${x.id}'`).join(",")
    // There is no HTTP event list: count the outbox rows of this database directly.
    const events = await psql(
      url,
      `select doc->'data'->>'id' || ' ' || (doc->'data'->>'status') from events
       where type = 'EXTERNAL_ACCOUNT.STATUS_UPDATED' and doc->'data'->>'id' in (${moved}) order by 1`
    )
    expect(events.split("\n").sort()).toEqual(
      [...validating.map((x) => `${x.id} ACTIVE`), `${failing.id} INACTIVE`].sort()
    )
    expect(await psql(url, `select count(*) from timers where subject_id in (${moved})`)).toBe("0")
    expect((await call(b, "GET", `/customers/external-accounts?customerId=${customer.id}&limit=100`)).body).toEqual(viaA.body)
  }, 45_000)

  it("a LIVENESS challenge started through one process passes 30 s later on the clock advanced through the other; other platforms' clocks stay put", async () => {
    const { a, b, url } = await adopt()
    const travel = { authorization: `Basic ${Buffer.from("travel_client_id:travel_client_secret").toString("base64")}` }
    const sandboxOffset = (await call(b, "GET", "/sandbox/clock")).body.offsetSeconds as number
    const travelOffset = (await call(a, "GET", "/sandbox/clock", undefined, travel)).body.offsetSeconds as number

    const customer = await created(a, "/customers", individual("Wallet Owner"), travel)
    const wallet = await created(b, "/customers/external-accounts", {
      customerId: customer.id,
      currency: "USDC",
      ownershipType: "FIRST_PARTY",
      accountInfo: { accountType: "ETHEREUM_WALLET", address: "0x52908400098527886e0f7030069857d2e4169ee7" }
    }, travel)
    expect(wallet.status).toBe("PENDING_OWNERSHIP_VERIFICATION")
    const challenge = await call(a, "POST", `/customers/external-accounts/${wallet.id}/challenge`, { method: "LIVENESS" }, travel)
    expect(challenge.status).toBe(201)

    const notYet = await call(b, "POST", "/sandbox/clock/advance", { seconds: 20 }, travel)
    expect(notYet.body.offsetSeconds).toBe(travelOffset + 20)
    expect((await call(a, "GET", `/customers/external-accounts/${wallet.id}`, undefined, travel)).body.status).toBe("PENDING_OWNERSHIP_VERIFICATION")
    const due = await call(b, "POST", "/sandbox/clock/advance", { seconds: 11 }, travel)
    expect(due.body.offsetSeconds).toBe(travelOffset + 31)
    expect((await call(a, "GET", "/sandbox/clock", undefined, travel)).body.offsetSeconds).toBe(travelOffset + 31)
    for (const base of [b, a]) {
      expect((await call(base, "GET", `/customers/external-accounts/${wallet.id}`, undefined, travel)).body.status).toBe("ACTIVE")
    }
    // Sandbox time is per platform: the default sandbox platform's clock did not move, seen from either process.
    for (const base of [a, b]) expect((await call(base, "GET", "/sandbox/clock")).body.offsetSeconds).toBe(sandboxOffset)
    // The other platform cannot see the wallet.
    expect((await call(a, "GET", `/customers/external-accounts/${wallet.id}`)).status).toBe(404)

    await new Promise((resolve) => setTimeout(resolve, 1_200))
    const events = await psql(
      url,
      `select doc->'data'->>'status' from events where type = 'EXTERNAL_ACCOUNT.STATUS_UPDATED' and doc->'data'->>'id' = '${wallet.id}' order by seq`
    )
    expect(events.split("\n")).toEqual(["ACTIVE"])
  }, 45_000)
})

// ---------------------------------------------------------------- configuration errors

describe("npm start refuses a wrong configuration with a message", () => {
  it("both stores, a non-postgres DATABASE_URL, duplicate platform ids or clientIds", async () => {
    const dir = tempDir("payments-config-")
    const platform = (id: string, clientId: string) => ({ id, clientId, clientSecret: `${id}_secret_123456` })
    const sameId = join(dir, "same-id.json")
    writeFileSync(sameId, JSON.stringify({ platforms: [platform("acme", "acme_id"), platform("acme", "other_id")] }))
    const sameClient = join(dir, "same-client.json")
    writeFileSync(sameClient, JSON.stringify({ platforms: [platform("acme", "shared_client"), platform("globex", "shared_client")] }))

    const cases: ReadonlyArray<{ env: Record<string, string>; message: RegExp; not?: string }> = [
      {
        env: { DATABASE_URL: "postgres://u:topsecret@127.0.0.1:1/db", PAYMENTS_DATA_DIR: join(dir, "data") },
        message: /DATABASE_URL or PAYMENTS_DATA_DIR, not both/,
        not: "topsecret"
      },
      { env: { DATABASE_URL: "mysql://u:topsecret@127.0.0.1:3306/db" }, message: /DATABASE_URL must be a postgres:\/\//, not: "topsecret" },
      // Nothing listens on port 1: the server cannot connect and says so, without the password.
      { env: { DATABASE_URL: "postgres://u:topsecret@127.0.0.1:1/db" }, message: /connect/i, not: "topsecret" },
      { env: { PAYMENTS_CONFIG: sameId }, message: /id "acme"/ },
      { env: { PAYMENTS_CONFIG: sameClient }, message: /clientId "shared_client"/ },
      { env: { PAYMENTS_DATA_DIR: join(dir, "data"), PAYMENTS_PGLITE_TEMPLATE: join(dir, "no-such-dump.tar.gz") }, message: /PAYMENTS_PGLITE_TEMPLATE names no file/ }
    ]
    const runs = cases.map((c) => ({ ...c, server: start(c.env) }))
    for (const { env, server, message, not } of runs) {
      const what = JSON.stringify(env)
      await expect(server.banner, what).rejects.toThrow(/server exited/)
      expect(await server.exited, what).toBe(1)
      expect(server.stderr() + server.stdout(), what).toMatch(message)
      expect(server.stdout(), what).not.toContain("listening")
      if (not !== undefined) expect(server.stderr() + server.stdout(), what).not.toContain(not)
      // Why it refused is an error message: on stderr.
      expect.soft(server.stderr(), `${what}: the reason is not on stderr`).toMatch(message)
    }
    // Nothing was created for the refused data directory.
    expect(existsSync(join(dir, "data"))).toBe(false)
  }, 45_000)
})
