/**
 * A client that trickles its request is cut off by the server's time limits instead of
 * holding a connection for Node's default 300 s (checked with short limits).
 */
import { connect } from "node:net"
import { Effect, Exit, Layer, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LoopbackWebhookSenderLayer, memoryLayer } from "../../src/adapters/memory/index.js"
import { DEFAULT_SERVER_TIMEOUTS, serveReference } from "../../src/http/node.js"
import { basic, platformA } from "../support/api.js"

const scope = Scope.makeUnsafe()
let port = 0

beforeAll(async () => {
  const served = await Effect.runPromise(Scope.provide(serveReference({
    services: Layer.merge(memoryLayer([platformA]), LoopbackWebhookSenderLayer),
    schedulerIntervalMillis: false,
    host: "127.0.0.1",
    port: 0,
    timeouts: { headersMillis: 400, requestMillis: 800, keepAliveMillis: 300 }
  }), scope))
  if (served.address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  port = served.address.port
})
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

/** Sends `head`, then one byte of `body` every `everyMillis`; resolves with what came back and when the socket closed. */
const trickle = (head: string, body: string, everyMillis: number) =>
  new Promise<{ readonly answer: string; readonly closedAfterMillis: number }>((resolve) => {
    const started = Date.now()
    const socket = connect(port, "127.0.0.1")
    let answer = ""
    let i = 0
    const timer = setInterval(() => {
      if (i < body.length && !socket.destroyed) socket.write(body.charAt(i++))
    }, everyMillis)
    socket.on("data", (d) => void (answer += d.toString("utf8")))
    socket.on("error", () => undefined)
    socket.on("close", () => {
      clearInterval(timer)
      resolve({ answer, closedAfterMillis: Date.now() - started })
    })
    socket.write(head)
  })

describe("connection time limits", () => {
  it("defaults suit a local API server", () => {
    expect(DEFAULT_SERVER_TIMEOUTS.headersMillis).toBeLessThanOrEqual(10_000)
    expect(DEFAULT_SERVER_TIMEOUTS.requestMillis).toBeLessThanOrEqual(30_000)
  })

  it("a body that trickles in is cut off at the request limit, not held", async () => {
    const body = JSON.stringify({ customerType: "INDIVIDUAL", fullName: "Slow Loris" })
    const head = `POST /2025-10-13/customers HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic(platformA)}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    const r = await trickle(head, body, 250)
    expect(r.closedAfterMillis).toBeLessThan(5_000)
    expect(r.answer === "" || /^HTTP\/1\.1 408/.test(r.answer)).toBe(true)
  })

  it("headers that never finish are cut off at the header limit", async () => {
    const r = await trickle("GET /2025-10-13/customers HTTP/1.1\r\nHost: x\r\n", "X-Slow: " + "a".repeat(100), 250)
    expect(r.closedAfterMillis).toBeLessThan(5_000)
  })

  it("a prompt request is answered as usual", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/2025-10-13/customers`, { headers: { authorization: basic(platformA) } })
    expect(res.status).toBe(200)
  })
})
