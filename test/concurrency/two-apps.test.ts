/**
 * Two app instances on ONE PostgreSQL database (as two server processes would be),
 * driven with random batches of concurrent requests, checked against a sequential
 * model: every answer must be one the model gives for SOME serialization order of the
 * batch, and after each batch both instances must list exactly the model's state.
 *
 * Operations (small value sets, so they clash): create a customer (platformCustomerId
 * p0..p2), create an external account (an equivalence from a small set, spelled in
 * several equivalent ways; routing ...901 accounts validate after 3 sandbox days),
 * delete an account seen earlier, the same creates with an Idempotency-Key (k0, k1),
 * advance the sandbox clock, read the clock, list an owner's accounts.
 *
 * Time: a request reads its platform's clock offset when it starts, so an operation
 * may run on any offset the clock had between the batch's start and the point where
 * it takes effect; what it created says which (`createdAt`). Advances are whole hours
 * chosen so two offsets never differ by exactly the idempotency TTL (24 h).
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { makeWebHandler } from "../../src/http/app.js"
import { servicesFor } from "../../src/server/services.js"
import { basic, platformA, readReply } from "../support/api.js"
import { createDatabase } from "../support/postgres.js"
import { numRuns } from "../support/runs.js"

// ---------------------------------------------------------------- two apps, one database

interface Reply {
  readonly status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are inspected freely
  readonly body: any
  /** When the answer arrived (epoch ms of this machine). */
  readonly at: number
}

type App = ReturnType<typeof makeWebHandler>
const apps: Array<App> = []

const call = async (via: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
  const app = apps[via]!
  const res = await app.handler(new Request(`http://test/2025-10-13${path}`, {
    method,
    headers: { authorization: basic(platformA), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  }))
  return { ...(await readReply(res)), at: Date.now() }
}

beforeAll(async () => {
  const url = await createDatabase(inject("databaseAdminUrl"))
  for (let i = 0; i < 2; i++) {
    apps.push(makeWebHandler({ services: servicesFor({ kind: "postgres", url }, [platformA], { webhookDestinations: ["loopback"] }), schedulerIntervalMillis: false }))
  }
  // Both migrate the fresh database at once.
  await Promise.all(apps.map((a) => a.ready))
})
afterAll(async () => {
  await Promise.allSettled(apps.map((a) => a.dispose()))
})

// ---------------------------------------------------------------- operations

const HOUR = 3_600
const DAY = 24 * HOUR
const IDEMPOTENCY_TTL = DAY
const VALIDATION_DELAY = 3 * DAY
/** 5 h and 13 h steps and 3 days: no sum of consecutive advances is exactly 24 h. */
const ADVANCES = [0, 5 * HOUR, 13 * HOUR, 3 * DAY] as const
const PCIDS = ["p0", "p1", "p2"] as const
const DIGITS = ["11112222", "33334444"] as const
const ROUTINGS = ["021000021", "021000901"] as const
const KEYS = ["k0", "k1"] as const
const OWNERS = 2

type CustomerReq = { readonly kind: "customer"; readonly pcid: string }
type AccountReq = { readonly kind: "account"; readonly owner: number; readonly digits: string; readonly routing: string; readonly spelling: number }
type Req = CustomerReq | AccountReq

type Op =
  | { readonly kind: "create"; readonly req: Req; readonly via: number }
  | { readonly kind: "idem"; readonly key: string; readonly req: Req; readonly via: number }
  | { readonly kind: "delete"; readonly target: number; readonly via: number }
  | { readonly kind: "advance"; readonly seconds: number; readonly via: number }
  | { readonly kind: "clock"; readonly via: number }
  | { readonly kind: "list"; readonly owner: number; readonly via: number }

/** Equivalent spellings of one account number (the equivalence ignores spaces and dashes). */
const spelled = (digits: string, spelling: number) =>
  spelling === 0 ? digits : spelling === 1 ? `${digits.slice(0, 4)}-${digits.slice(4)}` : `${digits.slice(0, 4)} ${digits.slice(4)}`

const equivalence = (owner: number, digits: string, routing: string) => `${owner}|${digits}|${routing}`
/** What a request is, for Idempotency-Key purposes: two requests with one identity have the same body. */
const identityOf = (req: Req) =>
  req.kind === "customer" ? `customer:${req.pcid}` : `account:${req.owner}:${spelled(req.digits, req.spelling)}:${req.routing}`

const reqArb: fc.Arbitrary<Req> = fc.oneof(
  fc.record({ kind: fc.constant("customer" as const), pcid: fc.constantFrom(...PCIDS) }),
  fc.record({
    kind: fc.constant("account" as const),
    owner: fc.integer({ min: 0, max: OWNERS - 1 }),
    digits: fc.constantFrom(...DIGITS),
    routing: fc.constantFrom(...ROUTINGS),
    spelling: fc.integer({ min: 0, max: 2 })
  })
)
const via = fc.integer({ min: 0, max: 1 })
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("create" as const), req: reqArb, via }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("idem" as const), key: fc.constantFrom(...KEYS), req: reqArb, via }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), target: fc.nat(7), via }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("advance" as const), seconds: fc.constantFrom(...ADVANCES), via }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("clock" as const), via }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("list" as const), owner: fc.integer({ min: 0, max: OWNERS - 1 }), via }) }
)
const batchesArb = fc.array(fc.array(opArb, { minLength: 2, maxLength: 6 }), { minLength: 1, maxLength: 4 })

// ---------------------------------------------------------------- the sequential model

interface Account {
  readonly id: string
  /** The clock offset (s) it was created at: its micro-entry validation falls due 3 days later. */
  readonly createdOffset: number
  readonly routing: string
  readonly owner: number
}
interface KeyRecord {
  readonly identity: string
  readonly body: unknown
  readonly createdOffset: number
}
interface State {
  readonly offset: number
  /** platformCustomerId → id (the owners are not in here). */
  readonly customers: ReadonlyMap<string, string>
  /** equivalence → account */
  readonly accounts: ReadonlyMap<string, Account>
  readonly keys: ReadonlyMap<string, KeyRecord>
}

const stateKey = (s: State) =>
  JSON.stringify([s.offset, [...s.customers].sort(), [...s.accounts].sort(), [...s.keys].sort()])

const withMap = <K, V>(m: ReadonlyMap<K, V>, k: K, v: V | undefined) => {
  const next = new Map(m)
  if (v === undefined) next.delete(k)
  else next.set(k, v)
  return next
}

/** An op with what it was sent as: the delete's target id is fixed when the batch is sent. */
type Sent = Op & { readonly targetId?: string }

interface Context {
  readonly owners: ReadonlyArray<string>
}

/** The offset (s) an answer's `createdAt` was stamped on, to the hour. */
const offsetOfCreated = (body: { readonly createdAt?: string }, at: number) =>
  Math.round((Date.parse(body.createdAt ?? "") - at) / 1000 / HOUR) * HOUR

const isConflict = (r: Reply, code: string) => r.status === 409 && r.body?.code === code

/**
 * A create without a key, taking effect on `state` while its clock read one of
 * `offsets`: the states it may leave, or none if the answer is impossible there.
 */
const applyCreate = (ctx: Context, state: State, req: Req, r: Reply, offsets: ReadonlyArray<number>): Array<[State, number]> => {
  if (req.kind === "customer") {
    if (state.customers.has(req.pcid)) return isConflict(r, "CONFLICT") && r.body.details?.idempotencyKey === undefined ? [[state, -1]] : []
    if (r.status !== 201 || r.body.platformCustomerId !== req.pcid) return []
    const used = offsetOfCreated(r.body, r.at)
    if (!offsets.includes(used)) return []
    return [[{ ...state, customers: withMap(state.customers, req.pcid, r.body.id as string) }, used]]
  }
  const eq = equivalence(req.owner, req.digits, req.routing)
  const existing = state.accounts.get(eq)
  if (existing !== undefined) {
    if (!isConflict(r, "DUPLICATE_EXTERNAL_ACCOUNT")) return []
    const named = r.body.details?.existingExternalAccountId
    return named === undefined || named === existing.id ? [[state, -1]] : []
  }
  if (r.status !== 201) return []
  const b = r.body
  const expectedStatus = req.routing.endsWith("901") ? "PENDING" : "ACTIVE"
  if (b.customerId !== ctx.owners[req.owner] || b.status !== expectedStatus || b.accountInfo?.accountNumber !== spelled(req.digits, req.spelling)) return []
  const used = offsetOfCreated(b, r.at)
  if (!offsets.includes(used)) return []
  const account: Account = { id: b.id as string, createdOffset: used, routing: req.routing, owner: req.owner }
  return [[{ ...state, accounts: withMap(state.accounts, eq, account) }, used]]
}

/** Every state `op` may leave when it takes effect on `state`, its clock having read one of `offsets`. */
const apply = (ctx: Context, state: State, op: Sent, r: Reply, offsets: ReadonlyArray<number>): Array<State> => {
  switch (op.kind) {
    case "create":
      return applyCreate(ctx, state, op.req, r, offsets).map(([s]) => s)
    case "idem": {
      const identity = identityOf(op.req)
      const rec = state.keys.get(op.key)
      const out: Array<State> = []
      for (const used of offsets) {
        const live = rec !== undefined && used - rec.createdOffset < IDEMPOTENCY_TTL
        if (live) {
          if (rec.identity === identity) {
            if (r.status === 201 && JSON.stringify(r.body) === JSON.stringify(rec.body)) out.push(state)
          } else if (isConflict(r, "CONFLICT") && r.body.details?.idempotencyKey === op.key) out.push(state)
        } else {
          for (const [next, createdAt] of applyCreate(ctx, state, op.req, r, [used])) {
            out.push(createdAt === -1 ? next : { ...next, keys: withMap(next.keys, op.key, { identity, body: r.body, createdOffset: createdAt }) })
          }
        }
      }
      return out
    }
    case "delete": {
      const live = [...state.accounts].find(([, a]) => a.id === op.targetId)
      if (live === undefined) return r.status === 404 ? [state] : []
      return r.status === 204 ? [{ ...state, accounts: withMap(state.accounts, live[0], undefined) }] : []
    }
    case "advance":
      return r.status === 200 && r.body.offsetSeconds === state.offset + op.seconds ? [{ ...state, offset: state.offset + op.seconds }] : []
    case "clock":
      return r.status === 200 && r.body.offsetSeconds === state.offset ? [state] : []
    case "list": {
      // The rows of one answer are one snapshot. (Its totalCount is checked by the test after this one.)
      if (r.status !== 200 || r.body.hasMore !== false) return []
      const seen = (r.body.data as Array<{ id: string }>).map((a) => a.id).sort()
      const expected = [...state.accounts.values()].filter((a) => a.owner === op.owner).map((a) => a.id).sort()
      return JSON.stringify(seen) === JSON.stringify(expected) ? [state] : []
    }
  }
}

/**
 * The states a batch may end in: every serialization order of its ops whose answers
 * the model gives, each op on an offset the clock had between the batch's start and
 * its own turn.
 */
const serializations = (ctx: Context, start: State, ops: ReadonlyArray<Sent>, replies: ReadonlyArray<Reply>): Map<string, State> => {
  const finals = new Map<string, State>()
  const visited = new Set<string>()
  const go = (state: State, done: number, offsets: ReadonlyArray<number>) => {
    const memo = `${done}|${offsets.join(",")}|${stateKey(state)}`
    if (visited.has(memo)) return
    visited.add(memo)
    if (done === (1 << ops.length) - 1) {
      finals.set(stateKey(state), state)
      return
    }
    ops.forEach((op, i) => {
      if ((done & (1 << i)) !== 0) return
      for (const next of apply(ctx, state, op, replies[i]!, offsets)) {
        go(next, done | (1 << i), next.offset === state.offset ? offsets : [...offsets, next.offset])
      }
    })
  }
  go(start, 0, [start.offset])
  return finals
}

// ---------------------------------------------------------------- what the apps say after a batch

interface Observed {
  readonly offset: number
  readonly customers: ReadonlyMap<string, string>
  readonly accounts: ReadonlyMap<string, { readonly id: string; readonly status: string }>
}

const digitsOf = (accountNumber: string) => accountNumber.replace(/[\s-]/g, "")

const observe = async (ctx: Context, viaApp: number): Promise<Observed> => {
  const [clock, customers, accounts] = await Promise.all([
    call(viaApp, "GET", "/sandbox/clock"),
    call(viaApp, "GET", "/customers?limit=100"),
    call(viaApp, "GET", "/customers/external-accounts?limit=100")
  ])
  expect(clock.status).toBe(200)
  expect(customers.status).toBe(200)
  expect(accounts.status).toBe(200)
  expect(customers.body.hasMore).toBe(false)
  expect(customers.body.totalCount).toBe(customers.body.data.length)
  expect(accounts.body.hasMore).toBe(false)
  expect(accounts.body.totalCount).toBe(accounts.body.data.length)
  const customerMap = new Map<string, string>()
  for (const c of customers.body.data as Array<{ id: string; platformCustomerId: string }>) {
    if (ctx.owners.includes(c.id)) continue
    // No two active customers share a platformCustomerId.
    expect(customerMap.has(c.platformCustomerId), `platformCustomerId ${c.platformCustomerId} twice`).toBe(false)
    customerMap.set(c.platformCustomerId, c.id)
  }
  expect(ctx.owners.every((o) => (customers.body.data as Array<{ id: string }>).some((c) => c.id === o))).toBe(true)
  const accountMap = new Map<string, { id: string; status: string }>()
  for (const a of accounts.body.data as Array<{ id: string; customerId: string; status: string; accountInfo: { accountNumber: string; routingNumber: string } }>) {
    const eq = equivalence(ctx.owners.indexOf(a.customerId), digitsOf(a.accountInfo.accountNumber), a.accountInfo.routingNumber)
    // No two accounts are equivalent.
    expect(accountMap.has(eq), `equivalent accounts ${eq}`).toBe(false)
    accountMap.set(eq, { id: a.id, status: a.status })
  }
  return { offset: clock.body.offsetSeconds as number, customers: customerMap, accounts: accountMap }
}

const expectedStatus = (state: State, a: Account) =>
  !a.routing.endsWith("901") ? "ACTIVE" : state.offset - a.createdOffset >= VALIDATION_DELAY ? "ACTIVE" : "PENDING"

const matches = (state: State, seen: Observed) =>
  seen.offset === state.offset &&
  JSON.stringify([...seen.customers].sort()) === JSON.stringify([...state.customers].sort()) &&
  JSON.stringify([...seen.accounts].sort()) ===
    JSON.stringify([...state.accounts].map(([eq, a]) => [eq, { id: a.id, status: expectedStatus(state, a) }]).sort())

const describeBatch = (ops: ReadonlyArray<Sent>, replies: ReadonlyArray<Reply>) =>
  ops.map((op, i) => `${JSON.stringify(op)}\n    → ${replies[i]!.status} ${JSON.stringify(replies[i]!.body)}`).join("\n  ")

// ---------------------------------------------------------------- the property

const bodyOf = (ctx: Context, req: Req) =>
  req.kind === "customer"
    ? { customerType: "INDIVIDUAL", fullName: `Customer ${req.pcid}`, platformCustomerId: req.pcid }
    : {
      customerId: ctx.owners[req.owner],
      currency: "USD",
      accountInfo: {
        accountType: "USD_ACCOUNT",
        accountNumber: spelled(req.digits, req.spelling),
        routingNumber: req.routing,
        bankAccountType: "CHECKING",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" }
      }
    }

const pathOf = (req: Req) => (req.kind === "customer" ? "/customers" : "/customers/external-accounts")

const NO_SUCH_ACCOUNT = "ExternalAccount:00000000-0000-4000-8000-000000000000"

const send = (ctx: Context, op: Sent): Promise<Reply> => {
  switch (op.kind) {
    case "create":
      return call(op.via, "POST", pathOf(op.req), bodyOf(ctx, op.req))
    case "idem":
      return call(op.via, "POST", pathOf(op.req), bodyOf(ctx, op.req), { "idempotency-key": op.key })
    case "delete":
      return call(op.via, "DELETE", `/customers/external-accounts/${op.targetId ?? NO_SUCH_ACCOUNT}`)
    case "advance":
      return call(op.via, "POST", "/sandbox/clock/advance", { seconds: op.seconds })
    case "clock":
      return call(op.via, "GET", "/sandbox/clock")
    case "list":
      return call(op.via, "GET", `/customers/external-accounts?customerId=${ctx.owners[op.owner]}&limit=100`)
  }
}

const runScenario = async (batches: ReadonlyArray<ReadonlyArray<Op>>) => {
  // A clean platform: no customers, accounts, keys, timers; clock offset 0.
  expect((await call(0, "POST", "/sandbox/reset")).status).toBeLessThan(300)
  const owners: Array<string> = []
  for (let i = 0; i < OWNERS; i++) {
    const r = await call(i % 2, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: `Owner ${i}`, platformCustomerId: `owner-${i}` })
    expect(r.status).toBe(201)
    owners.push(r.body.id)
  }
  const ctx: Context = { owners }
  let states: Array<State> = [{ offset: 0, customers: new Map(), accounts: new Map(), keys: new Map() }]
  const everCreated: Array<string> = []

  for (const batch of batches) {
    const ops: Array<Sent> = batch.map((op) =>
      op.kind === "delete" && everCreated.length > 0 ? { ...op, targetId: everCreated[op.target % everCreated.length]! } : op
    )
    const replies = await Promise.all(ops.map((op) => send(ctx, op)))
    for (const r of replies) if (r.status === 201 && typeof r.body?.id === "string" && r.body.id.startsWith("ExternalAccount:")) everCreated.push(r.body.id)

    const finals = new Map<string, State>()
    for (const s of states) for (const [k, v] of serializations(ctx, s, ops, replies)) finals.set(k, v)
    expect(finals.size, `no serialization order gives these answers:\n  ${describeBatch(ops, replies)}`).toBeGreaterThan(0)

    // Apply what fell due (a zero advance runs the due moves), then both apps must show one of the model's states.
    const settle = await call(ops.length % 2, "POST", "/sandbox/clock/advance", { seconds: 0 })
    expect(settle.status).toBe(200)
    const [seenA, seenB] = [await observe(ctx, 0), await observe(ctx, 1)]
    expect(seenB).toEqual(seenA)
    states = [...finals.values()].filter((s) => matches(s, seenA))
    expect(
      states.length,
      `the apps' state after the batch is none of the model's:\n  ${describeBatch(ops, replies)}\nobserved: ${JSON.stringify({ ...seenA, customers: [...seenA.customers], accounts: [...seenA.accounts] })}\nmodel: ${[...finals.keys()].join("\n       ")}`
    ).toBeGreaterThan(0)
  }
}

describe("two app instances on one PostgreSQL database", () => {
  it("concurrent creates, deletes, idempotent creates and clock advances agree with a sequential model", async () => {
    await fc.assert(fc.asyncProperty(batchesArb, runScenario), { numRuns: numRuns(40), endOnFailure: true })
  }, 60_000)

  it("a list answer counts the rows it pages over: totalCount and data from one snapshot, while the other app writes", async () => {
    expect((await call(0, "POST", "/sandbox/reset")).status).toBeLessThan(300)
    const owner = (await call(0, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Snapshot Owner" })).body.id as string
    const ctx: Context = { owners: [owner] }
    const torn: Array<string> = []
    let writing = true
    const writer = (async () => {
      try {
        for (let i = 0; i < 60; i++) {
          const digits = String(70_000_000 + i)
          await call(0, "POST", "/customers/external-accounts", bodyOf(ctx, { kind: "account", owner: 0, digits, routing: "021000021", spelling: 0 }))
          await call(0, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: `Snapshot ${i}` })
        }
      } finally {
        writing = false
      }
    })()
    const reader = async (path: string) => {
      while (writing) {
        const r = await call(1, "GET", path)
        expect(r.status).toBe(200)
        if (!r.body.hasMore && r.body.totalCount !== r.body.data.length) torn.push(`${path}: totalCount ${r.body.totalCount}, ${r.body.data.length} rows`)
      }
    }
    await Promise.all([writer, reader(`/customers/external-accounts?customerId=${owner}&limit=100`), reader("/customers?limit=100")])
    expect(torn, "list answers whose totalCount is not the number of rows they hold").toEqual([])
  }, 30_000)

  it("many racing creates of one equivalence across both apps: exactly one 201, the rest 409", async () => {
    expect((await call(0, "POST", "/sandbox/reset")).status).toBeLessThan(300)
    const owner = (await call(0, "POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Race Owner" })).body.id as string
    const ctx: Context = { owners: [owner] }
    const req: AccountReq = { kind: "account", owner: 0, digits: "55556666", routing: "021000021", spelling: 0 }
    const replies = await Promise.all(
      Array.from({ length: 24 }, (_, i) => call(i % 2, "POST", "/customers/external-accounts", bodyOf(ctx, { ...req, spelling: i % 3 })))
    )
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1)
    for (const r of replies.filter((x) => x.status !== 201)) expect(isConflict(r, "DUPLICATE_EXTERNAL_ACCOUNT"), JSON.stringify(r.body)).toBe(true)
    for (const v of [0, 1]) expect((await call(v, "GET", `/customers/external-accounts?customerId=${owner}`)).body.totalCount).toBe(1)
  }, 30_000)
})
