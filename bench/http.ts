/**
 * HTTP throughput of POST /customers/external-accounts: servers in child processes,
 * each loaded by autocannon from this process over loopback for the same bounded time,
 * in alternating rounds. Which servers (the reference app on some store, a raw
 * baseline on the same store) is the caller's choice: see run.ts.
 */
import { fork, type ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"
import autocannon from "autocannon"
import { build } from "esbuild"
import { onCleanUp, removeAtExit, trackChild } from "./cleanup.js"
import { benchPlatform } from "./servers/platform.js"

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

const bundles = new Map<string, Promise<string>>()

/**
 * Every server is bundled with esbuild first and runs on plain node, as a deployed
 * service would run: measuring them under the tsx loader would add its per-function
 * overhead to one side.
 */
export const bundle = (script: string): Promise<string> => {
  let file = bundles.get(script)
  if (file === undefined) {
    // One file per bench process (two benches run at once never load each other's build),
    // in .bench/ itself: the bundle reads files relative to it (../src/http/dashboard/).
    const outfile = here(`../.bench/${script.replace(/^.*\//, "").replace(/\.ts$/, "")}-${process.pid}.mjs`)
    removeAtExit(outfile)
    file = build({ entryPoints: [here(script)], bundle: true, platform: "node", format: "esm", packages: "external", outfile, logLevel: "error" })
      .then(() => outfile)
    bundles.set(script, file)
  }
  return file
}

const STARTUP_TIMEOUT_MS = 120_000

/**
 * The node flags a server child (app and raw alike) runs with: the ones `npm start` gives
 * the reference server (package.json): with a DATABASE_URL, a young generation of 2 MB
 * semi-spaces, which keeps each scavenge under a millisecond or so (with V8's default
 * size the app's scavenges took 8-9 ms each and were most of its PostgreSQL p99); on the
 * other stores V8's defaults, which measured better there (docs/performance.md, "Garbage
 * collection"). BENCH_NODE_FLAGS replaces them (`BENCH_NODE_FLAGS=` for none).
 */
export const serverNodeFlags = (env: Readonly<Record<string, string | undefined>>): Array<string> =>
  env["DATABASE_URL"] !== undefined && env["DATABASE_URL"] !== "" ? ["--max-semi-space-size=16"] : []

export interface Started {
  readonly child: ChildProcess
  readonly port: number
  readonly stop: () => Promise<void>
}

export const start = async (script: string, env: Record<string, string> = {}): Promise<Started> => {
  const file = await bundle(script)
  // Webhooks to loopback only, should a server child read the setting (the bench never reaches off the machine).
  const childEnv = { ...process.env, PAYMENTS_WEBHOOK_DESTINATIONS: "loopback", ...env }
  const execArgv = process.env["BENCH_NODE_FLAGS"] === undefined ? serverNodeFlags(childEnv) : process.env["BENCH_NODE_FLAGS"].split(" ").filter((f) => f !== "")
  const child = fork(file, [], { execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"], env: childEnv })
  trackChild(child)
  // A failed IPC send is reported where it is made (cpuOf), not as an unhandled 'error'.
  child.on("error", () => {})
  const stop = onCleanUp(() => stopChild(child))
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${script} did not report its port within ${STARTUP_TIMEOUT_MS / 1000}s`)), STARTUP_TIMEOUT_MS)
      child.once("message", (m) => {
        clearTimeout(timer)
        resolve((m as { port: number }).port)
      })
      child.once("exit", (code, signal) => {
        clearTimeout(timer)
        reject(new Error(`${script} exited with ${code ?? signal}`))
      })
    })
    return { child, port, stop }
  } catch (e) {
    await stop()
    throw e
  }
}

/** SIGTERM, then SIGKILL if the child is still there after 10 s. */
export const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
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

/**
 * Sends `question` to a server child over IPC and answers the first message `answer`
 * recognises (undefined for any other); fails if the child exits or the send fails first.
 */
export const askChild = <A>(child: ChildProcess, question: string, answer: (m: unknown) => A | undefined): Promise<A> =>
  new Promise((resolve, reject) => {
    const done = () => {
      child.off("message", onMessage)
      child.off("exit", onExit)
    }
    const onMessage = (m: unknown) => {
      const a = answer(m)
      if (a === undefined) return
      done()
      resolve(a)
    }
    const onExit = () => {
      done()
      reject(new Error("server exited while the bench was measuring it"))
    }
    child.on("message", onMessage)
    child.once("exit", onExit)
    if (!child.connected) return onExit()
    child.send(question, (err) => {
      if (err !== null) {
        done()
        reject(err)
      }
    })
  })

/** The child's CPU time (user + system, all threads) in microseconds, asked over IPC. */
export const cpuOf = (child: ChildProcess): Promise<number> =>
  askChild(child, "cpu", (m) => (typeof m === "object" && m !== null && "cpuMicros" in m && typeof m.cpuMicros === "number" ? m.cpuMicros : undefined))

export interface LoadResult {
  readonly requestsPerSecond: number
  /** Server CPU time per request, microseconds. */
  readonly cpuMicrosPerRequest: number
  /** The database server's CPU time per request (all its processes), when there is one. */
  readonly dbCpuMicrosPerRequest: number | undefined
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
  /** Non-2xx answers other than the refusal the load expects (quote + execute: INSUFFICIENT_FUNDS), where counted. */
  readonly unexpected?: number
}

/**
 * Load before measuring, per server: long enough for V8 to optimise the hot path of
 * the larger app (with 1 s the first round measured 10-20% below the later ones).
 */
export const WARM_UP_SECONDS = 3

/** Shared across runs and stores so every request registers a new account (no 409 duplicates). */
let sequence = 0

const load = async (
  child: ChildProcess,
  port: number,
  path: string,
  customerId: string,
  seconds: number,
  connections: number,
  dbCpu: (() => Promise<number>) | undefined
): Promise<LoadResult> => {
  const cpuBefore = await cpuOf(child)
  const dbBefore = await dbCpu?.()
  const result = await run(port, path, customerId, seconds, connections)
  const cpu = (await cpuOf(child)) - cpuBefore
  const dbAfter = await dbCpu?.()
  const requests = Math.max(1, result.requests)
  return {
    requestsPerSecond: result.requestsPerSecond,
    p50: result.p50,
    p99: result.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuMicrosPerRequest: cpu / requests,
    dbCpuMicrosPerRequest: dbBefore === undefined || dbAfter === undefined ? undefined : (dbAfter - dbBefore) / requests
  }
}

const run = (port: number, path: string, customerId: string, seconds: number, connections: number) => {
  return new Promise<Omit<LoadResult, "cpuMicrosPerRequest" | "dbCpuMicrosPerRequest"> & { requests: number }>((resolve, reject) => {
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

/** Creates the customer the accounts belong to, through the API, in the server's store. */
const createCustomer = async (port: number): Promise<string> => {
  const res = await fetch(`http://127.0.0.1:${port}/2025-10-13/customers`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: auth },
    body: JSON.stringify({ customerType: "INDIVIDUAL", fullName: "Bench Customer" })
  })
  const text = await res.text()
  if (res.status !== 201) throw new Error(`creating the bench customer answered ${res.status}: ${text}`)
  return (JSON.parse(text) as { id: string }).id
}

export interface ServerSpec<K extends string = string> {
  readonly key: K
  /** Script under bench/, e.g. "./servers/app.ts". */
  readonly script: string
  readonly env?: Record<string, string>
  /** The path loaded ("/" for the raw servers, which answer on any path). */
  readonly path: string
  /** True: create the customer through the API first (the app); else a fixed id. */
  readonly createsCustomer: boolean
}

export interface ServerResult {
  /** Mean req/s and CPU of the rounds, worst round's p50 / p99, summed non-2xx and errors. */
  readonly combined: LoadResult
  readonly rounds: ReadonlyArray<LoadResult>
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
    errors: rs.reduce((a, r) => a + r.errors, 0)
  }
}

/**
 * The servers stay up while the load alternates between them in short rounds, so
 * background load on a shared machine hits all alike. `dbCpu`, when given, reads the
 * database server's total CPU time (µs) before and after each load.
 */
export async function runHttpBench<K extends string>(opts: {
  readonly seconds: number
  readonly connections: number
  readonly rounds?: number
  readonly servers: ReadonlyArray<ServerSpec<K>>
  readonly dbCpu?: () => Promise<number>
}): Promise<Record<K, ServerResult>> {
  const rounds = Math.max(1, opts.rounds ?? 3)
  const slice = Math.max(1, Math.round(opts.seconds / rounds))
  const started: Array<Started> = []
  try {
    const targets: Array<{ spec: ServerSpec<K>; server: Started; customerId: string }> = []
    for (const spec of opts.servers) {
      const server = await start(spec.script, spec.env)
      started.push(server)
      targets.push({ spec, server, customerId: spec.createsCustomer ? await createCustomer(server.port) : "Customer:bench" })
    }
    for (const t of targets) await load(t.server.child, t.server.port, t.spec.path, t.customerId, WARM_UP_SECONDS, opts.connections, opts.dbCpu)
    const results = new Map<K, Array<LoadResult>>(opts.servers.map((s) => [s.key, []]))
    for (let i = 0; i < rounds; i++) {
      for (const t of targets) {
        results.get(t.spec.key)!.push(await load(t.server.child, t.server.port, t.spec.path, t.customerId, slice, opts.connections, opts.dbCpu))
      }
    }
    return Object.fromEntries([...results].map(([key, rs]) => [key, { combined: combine(rs), rounds: rs }])) as unknown as Record<K, ServerResult>
  } finally {
    for (const s of started.reverse()) await s.stop()
  }
}
