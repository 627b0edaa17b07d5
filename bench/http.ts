/**
 * HTTP throughput of POST /customers/external-accounts: the reference server against a
 * raw node:http baseline, both in child processes, each loaded by autocannon from
 * this process over loopback for the same bounded time.
 */
import { fork, type ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"
import autocannon from "autocannon"
import { build } from "esbuild"
import { benchPlatform } from "./servers/platform.js"

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

/**
 * Both servers are bundled with esbuild first and run on plain node, as a deployed
 * service would run: measuring them under the tsx loader would add its per-function
 * overhead to one side.
 */
const bundle = async (script: string): Promise<string> => {
  const outfile = here(`../.bench/${script.replace(/^.*\//, "").replace(/\.ts$/, ".mjs")}`)
  await build({ entryPoints: [here(script)], bundle: true, platform: "node", format: "esm", packages: "external", outfile, logLevel: "error" })
  return outfile
}

const start = async (script: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number }> => {
  const file = await bundle(script)
  return new Promise((resolve, reject) => {
    const child = fork(file, [], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"], env: { ...process.env, ...env } })
    child.once("message", (m) => resolve({ child, port: (m as { port: number }).port }))
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)))
  })
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

const auth = `Basic ${Buffer.from(`${benchPlatform.clientId}:${benchPlatform.clientSecret}`).toString("base64")}`

const accountBody = (customerId: string, n: number) =>
  JSON.stringify({
    customerId,
    currency: "USD",
    platformAccountId: `bench-${n}`,
    accountInfo: {
      accountType: "USD_ACCOUNT",
      // Ends in 0: never a sandbox 1xx name-check suffix such as 105 (rejected).
      accountNumber: `${100000000 + n}0`,
      routingNumber: "021000021",
      bankAccountType: "CHECKING",
      bankName: "Bench Bank",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace", birthDate: "1990-01-31", nationality: "GB" }
    }
  })

/** The child's CPU time (user + system, all threads) in microseconds, asked over IPC. */
const cpuOf = (child: ChildProcess): Promise<number> =>
  new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      if (typeof m === "object" && m !== null && "cpuMicros" in m && typeof m.cpuMicros === "number") {
        child.off("message", onMessage)
        resolve(m.cpuMicros)
      }
    }
    child.on("message", onMessage)
    child.send("cpu")
  })

export interface LoadResult {
  readonly requestsPerSecond: number
  /** Server CPU time per request, microseconds. */
  readonly cpuMicrosPerRequest: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
}

/**
 * Load before measuring, per server: long enough for V8 to optimise the hot path of
 * the larger app (with 1 s the first round measured 10-20% below the later ones).
 */
const WARM_UP_SECONDS = 3

/** Shared across runs so every request registers a new account (no 409 duplicates). */
let sequence = 0

const load = async (child: ChildProcess, port: number, path: string, customerId: string, seconds: number, connections: number): Promise<LoadResult> => {
  const cpuBefore = await cpuOf(child)
  const result = await run(port, path, customerId, seconds, connections)
  const cpu = (await cpuOf(child)) - cpuBefore
  return { ...result, cpuMicrosPerRequest: cpu / Math.max(1, result.requests) }
}

const run = (port: number, path: string, customerId: string, seconds: number, connections: number) => {
  return new Promise<Omit<LoadResult, "cpuMicrosPerRequest"> & { requests: number }>((resolve, reject) => {
    autocannon({
      url: `http://127.0.0.1:${port}${path}`,
      connections,
      duration: seconds,
      requests: [{
        method: "POST",
        headers: { "content-type": "application/json", authorization: auth },
        setupRequest: (req) => ({ ...req, body: accountBody(customerId, sequence++) })
      }]
    }, (err, result) => {
      if (err !== null && err !== undefined) return reject(err)
      resolve({
        requests: result.requests.total,
        requestsPerSecond: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors
      })
    })
  })
}

const createCustomer = async (port: number): Promise<string> => {
  const res = await fetch(`http://127.0.0.1:${port}/2025-10-13/customers`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: auth },
    body: JSON.stringify({ customerType: "INDIVIDUAL", fullName: "Bench Customer" })
  })
  const body = (await res.json()) as { id: string }
  return body.id
}

/**
 * The servers stay up while the load alternates between them in short rounds, so
 * background load on a shared machine hits all alike; ratios are taken over the
 * summed rounds. `httpapi` is the reference server with its direct lane off: every
 * request through the HttpApi router, middleware and codecs.
 */
export async function runHttpBench(opts: { seconds: number; connections: number; rounds?: number }) {
  const rounds = Math.max(1, opts.rounds ?? 3)
  const slice = Math.max(1, Math.round(opts.seconds / rounds))
  const raw = await start("./servers/raw.ts")
  const app = await start("./servers/app.ts")
  const httpapi = await start("./servers/app.ts", { BENCH_DIRECT_LANE: "0" })
  try {
    const path = "/2025-10-13/customers/external-accounts"
    const targets = [
      { name: "raw", server: raw, path: "/", customerId: "Customer:bench" },
      { name: "app", server: app, path, customerId: await createCustomer(app.port) },
      { name: "httpapi", server: httpapi, path, customerId: await createCustomer(httpapi.port) }
    ] as const
    for (const t of targets) await load(t.server.child, t.server.port, t.path, t.customerId, WARM_UP_SECONDS, opts.connections) // warm-up
    const results: Record<"raw" | "app" | "httpapi", Array<LoadResult>> = { raw: [], app: [], httpapi: [] }
    for (let i = 0; i < rounds; i++) {
      for (const t of targets) results[t.name].push(await load(t.server.child, t.server.port, t.path, t.customerId, slice, opts.connections))
    }
    const combine = (rs: ReadonlyArray<LoadResult>): LoadResult => ({
      requestsPerSecond: rs.reduce((a, r) => a + r.requestsPerSecond, 0) / rs.length,
      cpuMicrosPerRequest: rs.reduce((a, r) => a + r.cpuMicrosPerRequest, 0) / rs.length,
      p50: Math.max(...rs.map((r) => r.p50)),
      p99: Math.max(...rs.map((r) => r.p99)),
      non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
      errors: rs.reduce((a, r) => a + r.errors, 0)
    })
    const rawResult = combine(results.raw)
    const appResult = combine(results.app)
    const httpapiResult = combine(results.httpapi)
    const perRound = results.app.map((r, i) => r.requestsPerSecond / results.raw[i]!.requestsPerSecond)
    return {
      raw: rawResult,
      app: appResult,
      httpapi: httpapiResult,
      throughputRatio: appResult.requestsPerSecond / rawResult.requestsPerSecond,
      httpapiRatio: httpapiResult.requestsPerSecond / rawResult.requestsPerSecond,
      perRound
    }
  } finally {
    await stop(httpapi.child)
    await stop(app.child)
    await stop(raw.child)
  }
}
