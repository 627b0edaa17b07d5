/**
 * The baseline: a bare node:http server that reads the body, parses the same JSON,
 * checks two fields and answers a similar 201. What "no framework, no rules, no
 * storage" costs on this machine, measured in the same run as the real server.
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"

const server = createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    let body: { customerId?: unknown; currency?: unknown; accountInfo?: Record<string, unknown> }
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ code: "INVALID_INPUT", reason: "bad json" }))
      return
    }
    if (typeof body.customerId !== "string" || typeof body.accountInfo !== "object") {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ code: "INVALID_INPUT", reason: "bad body" }))
      return
    }
    const now = new Date().toISOString()
    const out = JSON.stringify({
      id: `ExternalAccount:${randomUUID()}`,
      customerId: body.customerId,
      status: "ACTIVE",
      currency: body.currency,
      defaultUmaDepositAccount: false,
      beneficiaryVerificationStatus: "MATCHED",
      accountInfo: body.accountInfo,
      createdAt: now,
      updatedAt: now
    })
    res.writeHead(201, { "content-type": "application/json" }).end(out)
  })
})

server.listen(0, "127.0.0.1", () => {
  const addr = server.address()
  if (addr !== null && typeof addr === "object") process.send?.({ port: addr.port })
})
// The bench asks for CPU time to report CPU per request.
process.on("message", (m) => {
  if (m === "cpu") {
    const u = process.cpuUsage()
    process.send?.({ cpuMicros: u.user + u.system })
  }
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
