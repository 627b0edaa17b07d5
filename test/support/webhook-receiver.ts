/**
 * A real webhook receiver for tests: node:http on a loopback port, recording every
 * request (raw body, signature header) and answering what `respond` says (a status, a
 * status with a JSON body, or "hang" to never answer).
 */
import { createPublicKey, verify } from "node:crypto"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly id: string
  readonly type: string
  /** `data.id`, or the webhook id when there is no data (TEST). */
  readonly resourceId: string
  readonly body: string
  readonly signature: string | undefined
  readonly contentType: string | undefined
  /** The answer given (undefined: never answered). */
  status: number | undefined
  /** How many times this id arrived, this one included. */
  readonly n: number
}

export type Respond = (r: Received) => number | { readonly status: number; readonly body: unknown } | "hang"

export const startReceiver = async (respond: Respond = () => 200) => {
  const got: Array<Received> = []
  const hanging: Array<ServerResponse> = []
  const counts = new Map<string, number>()
  const state = { respond }
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      let parsed: { id?: string; type?: string; data?: { id?: string } } = {}
      try {
        parsed = JSON.parse(body)
      } catch {
        // recorded as is
      }
      const id = parsed.id ?? ""
      const n = (counts.get(id) ?? 0) + 1
      counts.set(id, n)
      const signature = req.headers["x-service-signature"]
      const r: Received = {
        id,
        type: parsed.type ?? "",
        resourceId: parsed.data?.id ?? id,
        body,
        signature: typeof signature === "string" ? signature : undefined,
        contentType: req.headers["content-type"],
        status: undefined,
        n
      }
      got.push(r)
      const answer = state.respond(r)
      if (answer === "hang") {
        hanging.push(res)
        return
      }
      const [status, reply] = typeof answer === "number" ? [answer, { received: id }] : [answer.status, answer.body]
      r.status = status
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(reply))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    got,
    state,
    /** The requests acknowledged (2xx or 409), in arrival order. */
    acknowledged: () => got.filter((r) => r.status !== undefined && ((r.status >= 200 && r.status < 300) || r.status === 409)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>

/** node:crypto alone (no code of ours): the SEC1 uncompressed hex key, SHA-256 over the body, DER signature in base64. */
export const nodeVerifies = (body: string, signature: string, publicKeyHex: string): boolean => {
  const point = Buffer.from(publicKeyHex, "hex")
  const key = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: point.subarray(1, 33).toString("base64url"), y: point.subarray(33, 65).toString("base64url") },
    format: "jwk"
  })
  return verify("sha256", Buffer.from(body, "utf8"), key, Buffer.from(signature, "base64"))
}

/** Polls `check` until it holds (or throws after `timeoutMs`). */
export const eventually = async (check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = "condition") => {
  const until = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
