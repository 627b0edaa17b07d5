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

const start = async (script: string): Promise<{ child: ChildProcess; port: number }> => {
  const file = await bundle(script)
  return new Promise((resolve, reject) => {
    const child = fork(file, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
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

export interface LoadResult {
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
}

/** Shared across runs so every request registers a new account (no 409 duplicates). */
let sequence = 0

const load = (port: number, path: string, customerId: string, seconds: number, connections: number): Promise<LoadResult> => {
  return new Promise((resolve, reject) => {
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

export async function runHttpBench(opts: { seconds: number; connections: number }) {
  const results: Record<string, LoadResult> = {}
  for (const [name, script, path] of [
    ["raw node:http", "./servers/raw.ts", "/"],
    ["payments-service", "./servers/app.ts", "/2025-10-13/customers/external-accounts"]
  ] as const) {
    const { child, port } = await start(script)
    try {
      const customerId = name === "payments-service" ? await createCustomer(port) : "Customer:bench"
      await load(port, path, customerId, Math.min(2, opts.seconds), opts.connections) // warm-up (JIT, caches)
      results[name] = await load(port, path, customerId, opts.seconds, opts.connections)
    } finally {
      await stop(child)
    }
  }
  const raw = results["raw node:http"]!
  const app = results["payments-service"]!
  return { raw, app, throughputRatio: app.requestsPerSecond / raw.requestsPerSecond }
}
