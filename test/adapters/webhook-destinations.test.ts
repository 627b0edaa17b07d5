/**
 * The webhook destination rules (issue 25 item 6; docs/webhooks.md#destinations): the class
 * of an address, the lists an operator may give, and the guard in front of the HTTP
 * sender, with an injected resolver and transport so nothing here touches DNS or dials
 * out (the POSTs made for real go to loopback servers this test starts), and the HTTP
 * transport's limits (no redirect followed, the answer read capped).
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  checkDestination,
  guardedWebhookSender,
  type ResolvedAddress,
  type Resolver,
  systemResolver,
  type Transport,
  MAX_RESPONSE_BYTES
} from "../../src/adapters/webhook-http.js"
import { PlatformConfigEntry, platformFromConfig } from "../../src/domain/platform.js"
import {
  addressRefusal,
  classOf,
  LOOPBACK_POLICY,
  normalizeAddress,
  parseDestinations,
  policyOf,
  PRODUCTION_POLICY,
  SANDBOX_POLICY
} from "../../src/domain/webhook-destinations.js"
import type { WebhookResponse } from "../../src/ports/webhooks.js"
import { startReceiver } from "../support/webhook-receiver.js"

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 })
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 })

/** A resolver from a table, counting its lookups; a name not in it is ENOTFOUND. */
const fakeResolver = (table: Record<string, ReadonlyArray<ResolvedAddress>>) => {
  const lookups: Array<string> = []
  const resolver: Resolver = async (host) => {
    lookups.push(host)
    const found = table[host]
    if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" })
    return found
  }
  return { resolver, lookups }
}

/** A transport that records where it would have connected and answers 200. */
const recordingTransport = () => {
  const sent: Array<{ readonly url: string; readonly addresses: ReadonlyArray<string> }> = []
  const transport: Transport = async (url, _request, addresses) => {
    sent.push({ url: url.href, addresses: addresses.map((a) => a.address) })
    return { _tag: "Answered", status: 200, body: "", durationMs: 0 }
  }
  return { transport, sent }
}

const sandbox = platformFromConfig({ id: "sbx", clientId: "sbx", clientSecret: "secret-sbx-1" })
const production = platformFromConfig({ id: "prod", clientId: "prod", clientSecret: "secret-prod-1", sandbox: false })
const withPrivate = platformFromConfig({ id: "lan", clientId: "lan", clientSecret: "secret-lan-1", webhookDestinations: ["public", "10.20.0.0/16"] })

const send = (sender: ReturnType<typeof guardedWebhookSender>, url: string, platform = sandbox): Promise<WebhookResponse> =>
  Effect.runPromise(sender.send({ url, body: "{}", headers: { "content-type": "application/json" }, platform }))
const refusalOf = (sender: ReturnType<typeof guardedWebhookSender>, url: string, platform = sandbox) =>
  Effect.runPromise(sender.endpointRefusal!(url, platform))

describe("the class of an address", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["fd12:3456::1", "private"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:a9fe:a9fe", "metadata"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["2002:a9fe:a9fe::1", "metadata"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.10", "special"],
    ["2001:db8::1", "special"],
    ["93.184.216.34", "public"],
    ["172.32.0.1", "public"],
    ["2606:4700::1111", "public"],
    ["::ffff:8.8.8.8", "public"]
  ])("%s is %s", (address, expected) => {
    expect(classOf(address)).toBe(expected)
  })

  it("an IPv4-mapped IPv6 address is judged as its IPv4 address", () => {
    expect(normalizeAddress("::ffff:10.0.0.1")).toBe("10.0.0.1")
    expect(normalizeAddress("[::ffff:a00:1]")).toBe("10.0.0.1")
    expect(addressRefusal("::ffff:10.0.0.1", SANDBOX_POLICY)?.rule).toBe("PRIVATE_NOT_ALLOWED")
  })
})

describe("the rules by kind of platform", () => {
  it("sandbox: loopback and public allowed; private refused unless listed; link-local and metadata never", () => {
    expect(addressRefusal("127.0.0.1", SANDBOX_POLICY)).toBeUndefined()
    expect(addressRefusal("93.184.216.34", SANDBOX_POLICY)).toBeUndefined()
    expect(addressRefusal("192.168.0.10", SANDBOX_POLICY)?.rule).toBe("PRIVATE_NOT_ALLOWED")
    expect(addressRefusal("169.254.3.4", SANDBOX_POLICY)?.rule).toBe("LINK_LOCAL")
    expect(addressRefusal("169.254.169.254", SANDBOX_POLICY)?.rule).toBe("CLOUD_METADATA")
    expect(addressRefusal("0.0.0.0", SANDBOX_POLICY)?.rule).toBe("UNSPECIFIED")
    expect(addressRefusal("239.1.1.1", SANDBOX_POLICY)?.rule).toBe("MULTICAST")
  })

  it("production: public only, loopback refused", () => {
    expect(addressRefusal("93.184.216.34", PRODUCTION_POLICY)).toBeUndefined()
    expect(addressRefusal("127.0.0.1", PRODUCTION_POLICY)?.rule).toBe("LOOPBACK_NOT_ALLOWED")
    expect(addressRefusal("::1", PRODUCTION_POLICY)?.rule).toBe("LOOPBACK_NOT_ALLOWED")
  })

  it("a listed private range is allowed, and only that range; what is never allowed stays refused", () => {
    const policy = policyOf(["public", "10.20.0.0/16", "fd00:1::/32"])
    expect(addressRefusal("10.20.5.6", policy)).toBeUndefined()
    expect(addressRefusal("fd00:1::5", policy)).toBeUndefined()
    expect(addressRefusal("10.21.0.1", policy)?.rule).toBe("PRIVATE_NOT_ALLOWED")
    expect(addressRefusal("169.254.169.254", policyOf(["private", "loopback", "public"]))?.rule).toBe("CLOUD_METADATA")
    expect(addressRefusal("fd00:ec2::254", policyOf(["private"]))?.rule).toBe("CLOUD_METADATA")
  })

  it("a list cannot name what is never allowed, nor anything but keywords and ranges", () => {
    for (const bad of [["169.254.0.0/16"], ["fe80::/10"], ["0.0.0.0/0"], ["::/0"], ["224.0.0.0/4"], ["everything"], ["10.0.0.0/33"], []]) {
      expect(typeof parseDestinations(bad), JSON.stringify(bad)).toBe("string")
    }
    expect(parseDestinations([" Loopback ", "PUBLIC", "192.168.7.0/24", "10.1.2.3"])).toMatchObject({ entries: ["loopback", "public", "192.168.7.0/24", "10.1.2.3"] })
  })

  it("a platforms-file entry's webhookDestinations is validated at load", () => {
    const decode = Schema.decodeUnknownExit(PlatformConfigEntry)
    expect(decode({ id: "p", clientId: "c", clientSecret: "12345678", webhookDestinations: ["public", "10.0.0.0/8"] })._tag).toBe("Success")
    expect(decode({ id: "p", clientId: "c", clientSecret: "12345678", webhookDestinations: ["169.254.169.254"] })._tag).toBe("Failure")
    expect(decode({ id: "p", clientId: "c", clientSecret: "12345678", webhookDestinations: [] })._tag).toBe("Failure")
  })
})

describe("the sender's options", () => {
  it("fallback applies to platforms without a list of their own; override to every platform; invalid lists throw when the sender is built", async () => {
    const { transport, sent } = recordingTransport()
    const fallback = guardedWebhookSender({ fallback: ["public", "10.20.0.0/16"], transport })
    expect((await refusalOf(fallback, "http://127.0.0.1:9/x"))?.rule).toBe("LOOPBACK_NOT_ALLOWED")
    expect(await refusalOf(fallback, "http://10.20.1.1/x")).toBeUndefined()
    expect((await refusalOf(fallback, "http://10.20.1.1/x", platformFromConfig({ id: "own", clientId: "own", clientSecret: "secret-own-1", webhookDestinations: ["loopback"] })))?.rule)
      .toBe("PRIVATE_NOT_ALLOWED")
    const override = guardedWebhookSender({ override: ["loopback"], transport })
    expect((await refusalOf(override, "http://10.20.1.1/x", withPrivate))?.rule).toBe("PRIVATE_NOT_ALLOWED")
    expect(sent).toEqual([])
    expect(() => guardedWebhookSender({ fallback: ["169.254.0.0/16"] })).toThrow(/never/)
    expect(() => guardedWebhookSender({ override: ["anywhere"] })).toThrow()
  })
})

describe("the guard resolves once, checks every address and connects to the checked ones", () => {
  it("a name that resolves to a private address is refused, unsent", async () => {
    const { resolver } = fakeResolver({ "hooks.corp.example": [v4("10.20.30.40")] })
    const { transport, sent } = recordingTransport()
    const sender = guardedWebhookSender({ resolver, transport })
    const response = await send(sender, "https://hooks.corp.example/in")
    expect(response).toMatchObject({ _tag: "Failed" })
    expect(response._tag === "Failed" ? response.error : "").toContain("PRIVATE_NOT_ALLOWED")
    expect(response._tag === "Failed" ? response.error : "").toContain("hooks.corp.example resolves to 10.20.30.40")
    expect(sent).toEqual([])
    expect(await refusalOf(sender, "https://hooks.corp.example/in")).toMatchObject({ rule: "PRIVATE_NOT_ALLOWED" })
  })

  it("one refused address among several refuses the name", async () => {
    const { resolver } = fakeResolver({ "mixed.example": [v4("93.184.216.34"), v6("fe80::1")] })
    const { transport, sent } = recordingTransport()
    const response = await send(guardedWebhookSender({ resolver, transport }), "https://mixed.example/")
    expect(response._tag === "Failed" ? response.error : "").toContain("LINK_LOCAL")
    expect(sent).toEqual([])
  })

  it("an allowed private range is accepted, and the POST goes to the checked address", async () => {
    const { resolver, lookups } = fakeResolver({ "hooks.lan.example": [v4("10.20.0.7")] })
    const { transport, sent } = recordingTransport()
    const sender = guardedWebhookSender({ resolver, transport })
    expect(await refusalOf(sender, "https://hooks.lan.example/in", withPrivate)).toBeUndefined()
    expect(await send(sender, "https://hooks.lan.example/in", withPrivate)).toMatchObject({ _tag: "Answered", status: 200 })
    expect(sent).toEqual([{ url: "https://hooks.lan.example/in", addresses: ["10.20.0.7"] }])
    expect(lookups).toEqual(["hooks.lan.example", "hooks.lan.example"])
  })

  it("metadata names and addresses are refused before any lookup, on every platform", async () => {
    const { resolver, lookups } = fakeResolver({})
    const { transport, sent } = recordingTransport()
    const sender = guardedWebhookSender({ resolver, transport })
    for (const url of ["http://169.254.169.254/latest/meta-data/", "http://metadata.google.internal/computeMetadata/v1/", "http://[fd00:ec2::254]/", "http://[::ffff:169.254.169.254]/"]) {
      for (const platform of [sandbox, production, withPrivate]) {
        const response = await send(sender, url, platform)
        expect(response._tag === "Failed" ? response.error : "", url).toContain("CLOUD_METADATA")
        expect((await refusalOf(sender, url, platform))?.rule, url).toBe("CLOUD_METADATA")
      }
    }
    expect(lookups).toEqual([])
    expect(sent).toEqual([])
  })

  it("link-local addresses are refused", async () => {
    const { transport, sent } = recordingTransport()
    const sender = guardedWebhookSender({ resolver: fakeResolver({}).resolver, transport })
    for (const url of ["http://169.254.10.10:8080/x", "http://[fe80::1]/x"]) {
      expect((await refusalOf(sender, url))?.rule).toBe("LINK_LOCAL")
      const response = await send(sender, url)
      expect(response._tag === "Failed" ? response.error : "").toContain("LINK_LOCAL")
    }
    expect(sent).toEqual([])
  })

  it("a name is resolved once per attempt: a second answer (DNS rebinding) cannot swap the address", async () => {
    // The first answer is loopback (allowed on a sandbox platform), any later one metadata.
    let calls = 0
    const resolver: Resolver = async () => (++calls === 1 ? [v4("127.0.0.1")] : [v4("169.254.169.254")])
    const receiver = await startReceiver()
    try {
      const port = new URL(receiver.url).port
      // `.invalid` never resolves for real: only the pinned, checked address can be reached.
      const response = await send(guardedWebhookSender({ resolver }), `http://rebind.example.invalid:${port}/webhooks`)
      expect(response).toMatchObject({ _tag: "Answered", status: 200 })
      expect(calls).toBe(1)
      expect(receiver.got.length).toBe(1)
    } finally {
      await receiver.close()
    }
  })

  it("loopback is allowed on a sandbox platform and refused on a production one", async () => {
    const { transport, sent } = recordingTransport()
    const sender = guardedWebhookSender({ resolver: fakeResolver({}).resolver, transport })
    expect(await send(sender, "http://127.0.0.1:9/hooks")).toMatchObject({ _tag: "Answered" })
    expect(await send(sender, "http://localhost:9/hooks")).toMatchObject({ _tag: "Answered" })
    expect(sent.map((s) => s.addresses)).toEqual([["127.0.0.1"], ["127.0.0.1", "::1"]])
    const refused = await send(sender, "http://127.0.0.1:9/hooks", production)
    expect(refused._tag === "Failed" ? refused.error : "").toContain("LOOPBACK_NOT_ALLOWED")
    expect((await refusalOf(sender, "http://[::1]:9/hooks", production))?.rule).toBe("LOOPBACK_NOT_ALLOWED")
  })

  it("an unresolvable name is accepted at PATCH time and fails at the attempt", async () => {
    const { transport, sent } = recordingTransport()
    const sender = guardedWebhookSender({ resolver: fakeResolver({}).resolver, transport })
    expect(await refusalOf(sender, "https://not-yet.example/hooks")).toBeUndefined()
    const response = await send(sender, "https://not-yet.example/hooks")
    expect(response._tag === "Failed" ? response.error : "").toContain("ENOTFOUND")
    expect(sent).toEqual([])
  })

  it("the system resolver never looks up a name under .invalid", async () => {
    await expect(systemResolver("hooks.example.invalid")).rejects.toMatchObject({ code: "ENOTFOUND" })
    const checked = await checkDestination("https://hooks.example.invalid/x", SANDBOX_POLICY)
    expect(checked).toMatchObject({ _tag: "Unresolved" })
  })

  it("loopback only: a name other than localhost is refused without a lookup, and accepted at PATCH time", async () => {
    const { resolver, lookups } = fakeResolver({ "hooks.example.com": [v4("127.0.0.1")] })
    const { transport, sent } = recordingTransport()
    const sender = guardedWebhookSender({ override: LOOPBACK_POLICY, resolver, transport })
    const response = await send(sender, "https://hooks.example.com/x")
    expect(response._tag === "Failed" ? response.error : "").toContain("not a loopback destination")
    expect(await refusalOf(sender, "https://hooks.example.com/x")).toBeUndefined()
    expect((await refusalOf(sender, "http://10.0.0.1/x"))?.rule).toBe("PRIVATE_NOT_ALLOWED")
    expect((await refusalOf(sender, "http://93.184.216.34/x"))?.rule).toBe("PUBLIC_NOT_ALLOWED")
    expect(lookups).toEqual([])
    expect(sent).toEqual([])
  })
})

describe("the HTTP transport behind the guard", () => {
  /** A loopback server counting its requests. */
  const serve = async (handle: Parameters<typeof createServer>[1]) => {
    let hits = 0
    const server = createServer((req, res) => {
      hits++
      handle!(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, hits: () => hits }
  }
  const close = (server: Server) => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

  it("never follows a redirect: a 3xx is the answer, the Location is not visited", async () => {
    const target = await serve((_req, res) => res.end("target"))
    const redirecting = await serve((_req, res) => {
      res.writeHead(302, { location: target.url })
      res.end()
    })
    try {
      const response = await send(guardedWebhookSender(), redirecting.url)
      expect(response).toMatchObject({ _tag: "Answered", status: 302 })
      expect(redirecting.hits()).toBe(1)
      expect(target.hits()).toBe(0)
    } finally {
      await close(target.server)
      await close(redirecting.server)
    }
  })

  it("keeps a connection open for the next webhook to the same destination", async () => {
    const target = await serve((_req, res) => res.end("ok"))
    let connections = 0
    target.server.on("connection", () => connections++)
    try {
      const sender = guardedWebhookSender()
      for (let i = 0; i < 5; i++) expect(await send(sender, target.url)).toMatchObject({ _tag: "Answered", status: 200 })
      expect(target.hits()).toBe(5)
      expect(connections).toBe(1)
      // Side by side: a connection each, kept too.
      const together = await Promise.all(Array.from({ length: 4 }, () => send(sender, target.url)))
      expect(together.every((r) => r._tag === "Answered" && r.status === 200)).toBe(true)
      expect(connections).toBeLessThanOrEqual(4)
    } finally {
      await close(target.server)
    }
  })

  it("a kept connection the receiver drops before answering is not the answer: the webhook goes again on a new one", async () => {
    const perSocket = new WeakMap<object, number>()
    let connections = 0
    const target = await serve((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1
      perSocket.set(req.socket, n)
      // The second request on a connection: dropped unanswered, as a receiver closing an idle connection races it.
      if (n === 2) req.socket.destroy()
      else res.end("ok")
    })
    target.server.on("connection", () => connections++)
    try {
      const sender = guardedWebhookSender()
      expect(await send(sender, target.url)).toMatchObject({ _tag: "Answered", status: 200 })
      expect(await send(sender, target.url)).toMatchObject({ _tag: "Answered", status: 200 })
      expect(connections).toBe(2)
      expect(target.hits()).toBe(3)
    } finally {
      await close(target.server)
    }
  })

  it("a connection the receiver drops before answering, when it was not a kept one, is a failed attempt", async () => {
    const target = await serve((req) => req.socket.destroy())
    try {
      const response = await send(guardedWebhookSender(), target.url)
      expect(response._tag).toBe("Failed")
      expect(target.hits()).toBe(1)
    } finally {
      await close(target.server)
    }
  })

  it("reads at most MAX_RESPONSE_BYTES of an answer, and sends the body as given", async () => {
    let received = ""
    const big = await serve((req, res) => {
      let body = ""
      req.on("data", (c: Buffer) => (body += c.toString()))
      req.on("end", () => {
        received = body
        res.writeHead(200, { "content-type": "text/plain" })
        res.end("x".repeat(MAX_RESPONSE_BYTES * 3))
      })
    })
    try {
      const response = await Effect.runPromise(guardedWebhookSender().send({ url: big.url, body: "{\"a\":\"é\"}", headers: { "content-type": "application/json" }, platform: sandbox }))
      expect(response._tag).toBe("Answered")
      expect(response._tag === "Answered" ? response.body.length : 0).toBe(MAX_RESPONSE_BYTES)
      expect(received).toBe("{\"a\":\"é\"}")
    } finally {
      await close(big.server)
    }
  })
})

