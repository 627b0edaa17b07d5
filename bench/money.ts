/**
 * Quote + execute throughput: POST /quotes then POST /quotes/{id}/execute, over and over
 * on every connection, each connection paying from its own funded internal account to
 * its own receiver (no two connections share a source, so the figure is the ledger's
 * cost, not one account's lock). The reference server and the raw baseline on the same
 * store (bench/servers/raw-money.ts) alternate in rounds, like the HTTP pairs.
 *
 * `hot`: a hot account (issue #24): every connection pays from ONE shared funded account
 * (the platform paying out from its own account), each to its own receiver; the raw
 * baseline likewise debits one row, one row lock per debit. Every answer must be a
 * success or INSUFFICIENT_FUNDS: anything else (a 503 above all) is counted as unexpected.
 */
import autocannon from "autocannon"
import { cpuOf, type LoadResult, type ServerResult, start, type Started, WARM_UP_SECONDS } from "./http.js"
import { API_PREFIX, benchMoneyAuth, benchMoneyPlatform, moneyApi, RAW_ACCOUNT_PAIRS } from "./servers/platform.js"

const auth = benchMoneyAuth
const PREFIX = API_PREFIX
/** Minor units per payment: 1.00 USD. */
const AMOUNT = 100

export interface Pair {
  readonly source: string
  readonly destination: string
}

const api = moneyApi

/**
 * One approved customer pair per connection through the app's API: the payer's USD account
 * funded. `hot`: every pair pays from the first payer's account (the others are not created).
 */
export const appPairs = async (port: number, count: number, hot: boolean): Promise<Array<Pair>> => {
  const usdOf = async (customerId: string) => {
    const list = await api(port, "GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`)
    const account = (list["data"] as Array<{ id: string }>)[0]
    if (account === undefined) throw new Error(`customer ${customerId} has no USD internal account`)
    return account.id
  }
  const pairs: Array<Pair> = []
  let shared: string | undefined
  for (let i = 0; i < count; i++) {
    const [payer, payee] = await Promise.all((hot && shared !== undefined ? ["Payee"] : ["Payer", "Payee"]).map((n) =>
      api(port, "POST", "/customers", {
        customerType: "INDIVIDUAL",
        fullName: `Bench ${n} ${i}`,
        birthDate: "1990-04-12",
        nationality: "US",
        idType: "PASSPORT",
        identifier: "X1234567",
        address: { line1: "1 Main St", city: "Springfield", postalCode: "12345", country: "US" }
      })
    ))
    if (hot && shared !== undefined) {
      pairs.push({ source: shared, destination: await usdOf(String(payer!["id"])) })
      continue
    }
    const source = await usdOf(String(payer!["id"]))
    await api(port, "POST", `/sandbox/internal-accounts/${encodeURIComponent(source)}/fund`, { amount: 100_000_000_000 })
    shared = source
    pairs.push({ source, destination: await usdOf(String(payee!["id"])) })
  }
  return pairs
}

const rawPairs = (count: number, hot: boolean): Array<Pair> =>
  Array.from({ length: count }, (_, i) => ({ source: `raw-src-${hot ? 0 : i % RAW_ACCOUNT_PAIRS}`, destination: `raw-dst-${i % RAW_ACCOUNT_PAIRS}` }))

/** Whether an answer is a success or the refusal a payment may meet (INSUFFICIENT_FUNDS). */
const expected = (status: number, body: string): boolean => status < 300 || (status === 400 && body.includes('"INSUFFICIENT_FUNDS"'))

interface Context {
  quoteId?: string
}

/**
 * The quote and the execute of one connection, paying from its own pair. (autocannon
 * clears a connection's context at every loop over its requests, so the pair is not
 * kept there: each client gets its own requests, bound to its pair, in `setupClient`.)
 */
const requestsFor = (pair: Pair, unexpected: { count: number }): Array<autocannon.Request> => [
  {
    method: "POST",
    path: `${PREFIX}/quotes`,
    headers: { "content-type": "application/json", authorization: auth },
    setupRequest: (req) => ({
      ...req,
      body: JSON.stringify({
        source: { sourceType: "ACCOUNT", accountId: pair.source },
        destination: { destinationType: "ACCOUNT", accountId: pair.destination },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: AMOUNT
      })
    }),
    onResponse: (status, body, context) => {
      if (!expected(status, body)) unexpected.count++
      ;(context as Context).quoteId = status === 201 ? (JSON.parse(body) as { id: string }).id : "Quote:missing"
    }
  },
  {
    method: "POST",
    headers: { authorization: auth },
    setupRequest: (req, context) => ({ ...req, path: `${PREFIX}/quotes/${encodeURIComponent((context as Context).quoteId ?? "Quote:missing")}/execute` }),
    onResponse: (status, body, context) => {
      // An execute of a quote that was refused (Quote:missing) answers 404: the quote's answer counted already.
      if ((context as Context).quoteId !== "Quote:missing" && !expected(status, body)) unexpected.count++
    }
  }
]

/** One load: every connection alternates quote and execute; counts requests, reports payments (pairs) per second. */
export const run = (port: number, pairs: ReadonlyArray<Pair>, seconds: number, connections: number) =>
  new Promise<Omit<LoadResult, "cpuMicrosPerRequest" | "dbCpuMicrosPerRequest"> & { requests: number }>((resolve, reject) => {
    let next = 0
    const unexpected = { count: 0 }
    autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      duration: seconds,
      requests: requestsFor(pairs[0]!, unexpected),
      // One pair per connection, for the whole load (independent payers: no two connections pay from one account).
      setupClient: (client) => client.setRequests(requestsFor(pairs[next++ % pairs.length]!, unexpected))
    }, (err, result) => {
      if (err !== null && err !== undefined) return reject(err)
      resolve({
        requests: result.requests.total,
        // Two requests per payment: the figure is payments (quote + execute) per second.
        requestsPerSecond: result.requests.average / 2,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors,
        unexpected: unexpected.count
      })
    })
  })

/** One load of `seconds` on `server`, with its CPU (and the database's) per payment around it; `payments`: how many it made. */
export const load = async (
  server: Started,
  pairs: ReadonlyArray<Pair>,
  seconds: number,
  connections: number,
  dbCpu: (() => Promise<number>) | undefined
): Promise<LoadResult & { readonly payments: number }> => {
  const cpuBefore = await cpuOf(server.child)
  const dbBefore = await dbCpu?.()
  const r = await run(server.port, pairs, seconds, connections)
  const cpu = (await cpuOf(server.child)) - cpuBefore
  const dbAfter = await dbCpu?.()
  const payments = Math.max(1, r.requests / 2)
  return {
    payments,
    requestsPerSecond: r.requestsPerSecond,
    p50: r.p50,
    p99: r.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    unexpected: r.unexpected ?? 0,
    cpuMicrosPerRequest: cpu / payments,
    dbCpuMicrosPerRequest: dbBefore === undefined || dbAfter === undefined ? undefined : (dbAfter - dbBefore) / payments
  }
}

const combine = (rs: ReadonlyArray<LoadResult>): LoadResult => {
  const mean = (f: (r: LoadResult) => number) => rs.reduce((a, r) => a + f(r), 0) / rs.length
  return {
    requestsPerSecond: mean((r) => r.requestsPerSecond),
    cpuMicrosPerRequest: mean((r) => r.cpuMicrosPerRequest),
    dbCpuMicrosPerRequest: rs.every((r) => r.dbCpuMicrosPerRequest !== undefined) ? mean((r) => r.dbCpuMicrosPerRequest ?? 0) : undefined,
    p50: Math.max(...rs.map((r) => r.p50)),
    p99: Math.max(...rs.map((r) => r.p99)),
    non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
    errors: rs.reduce((a, r) => a + r.errors, 0),
    unexpected: rs.reduce((a, r) => a + (r.unexpected ?? 0), 0)
  }
}

export interface MoneyServerSpec<K extends string> {
  readonly key: K
  readonly script: "./servers/app.ts" | "./servers/raw-money.ts"
  readonly env?: Record<string, string>
}

/**
 * The app and the raw baseline stay up while the load alternates between them in
 * rounds. Figures are per payment (one quote + one execute): payments per second, CPU
 * per payment; latencies are per request.
 */
export async function runMoneyBench<K extends string>(opts: {
  readonly seconds: number
  readonly connections: number
  readonly rounds?: number
  readonly servers: ReadonlyArray<MoneyServerSpec<K>>
  readonly dbCpu?: () => Promise<number>
  /** Every connection pays from one shared account (a hot account). */
  readonly hot?: boolean
}): Promise<Record<K, ServerResult>> {
  const hot = opts.hot === true
  const rounds = Math.max(1, opts.rounds ?? 3)
  const slice = Math.max(1, Math.round(opts.seconds / rounds))
  const started: Array<Started> = []
  try {
    const targets: Array<{ spec: MoneyServerSpec<K>; server: Started; pairs: ReadonlyArray<Pair> }> = []
    for (const spec of opts.servers) {
      const server = await start(spec.script, spec.env)
      started.push(server)
      const pairs = spec.script === "./servers/app.ts" ? await appPairs(server.port, opts.connections, hot) : rawPairs(opts.connections, hot)
      targets.push({ spec, server, pairs })
    }
    for (const t of targets) await load(t.server, t.pairs, WARM_UP_SECONDS, opts.connections, opts.dbCpu)
    const results = new Map<K, Array<LoadResult>>(opts.servers.map((s) => [s.key, []]))
    for (let i = 0; i < rounds; i++) {
      for (const t of targets) results.get(t.spec.key)!.push(await load(t.server, t.pairs, slice, opts.connections, opts.dbCpu))
    }
    return Object.fromEntries([...results].map(([key, rs]) => [key, { combined: combine(rs), rounds: rs }])) as unknown as Record<K, ServerResult>
  } finally {
    for (const s of started.reverse()) await s.stop()
  }
}
