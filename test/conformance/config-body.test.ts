/**
 * Conformance: the `PATCH /config` body is validated as the reference types every field
 * of `PlatformConfigUpdateRequest` (issue 25 item 1). Walked from the reference file
 * itself: for each field (following $refs, arrays at their first item) a value of the
 * wrong type, a value outside an enum, and a value breaking a format the reference names
 * (`email`, `uri`) is a 400 INVALID_INPUT naming that field, and nothing is stored. The
 * body of valid values is accepted and answered as the reference's PlatformConfig, the
 * readOnly provider fields of a currency accepted and not stored. A configuration stored
 * before the formats were checked is still answered (the answer's schema is not the
 * request's).
 */
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import { LoopbackWebhookSenderLayer } from "../../src/adapters/webhook-http.js"
import { platformFromConfig } from "../../src/domain/platform.js"
import { makeWebHandler } from "../../src/http/app.js"
import { defaultConfig } from "../../src/operations/money/config.js"
import { Store } from "../../src/ports/store.js"
import { basic, isErrorShape, makeApi, platformA, readReply } from "../support/api.js"
import { conformance, type Json, reference } from "./harness.js"

type Schema = {
  readonly $ref?: string
  readonly type?: string
  readonly format?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly readOnly?: boolean
  readonly properties?: Record<string, Schema>
  readonly items?: Schema
}

const resolve = (s: Schema): Schema => (s.$ref === undefined ? s : resolve(reference.components.schemas[s.$ref.replace("#/components/schemas/", "")] as Schema))

/** One field of the body: its path (`a.b[0].c`), as a list of keys, and its schema. */
interface Leaf {
  readonly path: string
  readonly keys: ReadonlyArray<string | number>
  readonly schema: Schema
}

/** Every field under `schema` (objects and arrays too: each is a field of its own). */
const leavesOf = (schema: Schema, keys: ReadonlyArray<string | number> = [], path = ""): Array<Leaf> => {
  const s = resolve(schema)
  const here: Array<Leaf> = keys.length === 0 ? [] : [{ path, keys, schema: s }]
  if (s.type === "object" || s.properties !== undefined) {
    return [...here, ...Object.entries(s.properties ?? {}).flatMap(([name, p]) => leavesOf(p, [...keys, name], path === "" ? name : `${path}.${name}`))]
  }
  if (s.type === "array" && s.items !== undefined) return [...here, ...leavesOf(s.items, [...keys, 0], `${path}[0]`)]
  return here
}

const requestSchema = reference.components.schemas["PlatformConfigUpdateRequest"] as Schema
const leaves = leavesOf(requestSchema)

/** Values that break a field as the reference types it. */
const badValuesOf = (s: Schema): ReadonlyArray<unknown> => {
  const wrongType = s.type === "string" ? 5 : s.type === "integer" ? "12" : s.type === "boolean" ? "yes" : s.type === "array" ? "x" : s.type === "object" ? [] : undefined
  return [
    ...(wrongType === undefined ? [] : [wrongType]),
    ...(s.type === "integer" ? [1.5] : []),
    ...(s.enum !== undefined ? ["NOT_IN_THE_ENUM"] : []),
    ...(s.format === "email" ? ["not-an-email", "a@b"] : []),
    ...(s.format === "uri" ? ["not a uri", "acme.com/logo.png"] : [])
  ]
}

/** A body every field of which is valid (SPEC.md's fee rules: USD, both parts). */
const validBody = (): Record<string, unknown> => ({
  umaDomain: "pay.example.com",
  webhookEndpoint: "https://hooks.config-body.invalid/hooks",
  supportedCurrencies: [{
    currencyCode: "USD",
    minAmount: 1,
    maxAmount: 1_000_000,
    requiredCounterpartyFields: [{ name: "FULL_NAME", mandatory: true }],
    providerRequiredCustomerFields: ["NATIONALITY", "BIRTH_DATE"],
    providerRequiredCounterpartyCustomerFields: ["FULL_NAME"],
    enabledTransactionTypes: ["OUTGOING", "INCOMING"]
  }],
  embeddedWalletConfig: {
    appName: "Acme Wallet",
    otpLength: 6,
    alphanumeric: false,
    expirationSeconds: 300,
    sendFromEmailAddress: "noreply@acme.com",
    sendFromEmailSenderName: "Acme Notifications",
    replyToEmailAddress: "support@acme.com",
    logoUrl: "https://acme.com/logo.png"
  },
  cardTokenization2faConfig: {
    displayName: "Acme",
    logoUrl: "https://acme.com/card-email-logo.png",
    email: { fromAddress: "cards@acme.com", fromName: "Acme Cards", replyToAddress: "support@acme.com", subject: "Your code", bodyText: "Use this code." },
    sms: { templateSid: "HJaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", bodyText: "Use this code." }
  },
  feeConfigs: [{ feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "USD", variableFeeBps: 30, fixedFee: { amount: 100, currency: "USD" } }]
})

const withValueAt = (body: Record<string, unknown>, keys: ReadonlyArray<string | number>, value: unknown) => {
  const copy = structuredClone(body)
  let node: Record<string | number, unknown> = copy
  keys.slice(0, -1).forEach((k, i) => {
    if (typeof node[k] !== "object" || node[k] === null) node[k] = typeof keys[i + 1] === "number" ? [] : {}
    node = node[k] as Record<string | number, unknown>
  })
  node[keys.at(-1)!] = value
  return copy
}

const { schemaConforms } = conformance(() => undefined)

describe("PATCH /config: every field of the body as the reference types it", () => {
  it("the walk covers the fields issue 25 names", () => {
    const paths = leaves.map((l) => l.path)
    for (const p of [
      "embeddedWalletConfig.sendFromEmailAddress",
      "embeddedWalletConfig.replyToEmailAddress",
      "embeddedWalletConfig.logoUrl",
      "cardTokenization2faConfig.email.fromAddress",
      "cardTokenization2faConfig.email.replyToAddress",
      "cardTokenization2faConfig.logoUrl",
      "supportedCurrencies[0].providerRequiredCustomerFields",
      "supportedCurrencies[0].providerRequiredCounterpartyCustomerFields[0]"
    ]) expect(paths).toContain(p)
  })

  it("a body of valid values is accepted and answered as the reference's PlatformConfig; the readOnly provider fields are not stored", async () => {
    const api = makeApi([platformA], undefined, { store: "memory" })
    try {
      const reply = await api.call("PATCH", "/config", { body: validBody(), as: platformA })
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      const json = reply.body as Json & { supportedCurrencies: Array<Json> }
      expect(json.supportedCurrencies[0]).not.toHaveProperty("providerRequiredCustomerFields")
      expect(json.supportedCurrencies[0]).not.toHaveProperty("providerRequiredCounterpartyCustomerFields")
      expect(json).toMatchObject({ embeddedWalletConfig: { sendFromEmailAddress: "noreply@acme.com", logoUrl: "https://acme.com/logo.png" } })
    } finally {
      await api.dispose()
    }
  })

  it.each(leaves.flatMap((leaf) => badValuesOf(leaf.schema).map((bad) => ({ leaf, bad }))).map(({ leaf, bad }) => [leaf.path, JSON.stringify(bad), leaf, bad] as const))(
    "%s = %s: 400 naming the field, nothing stored",
    async (_path, _text, leaf, bad) => {
      const api = makeApi([platformA], undefined, { store: "memory" })
      try {
        const reply = await api.call("PATCH", "/config", { body: withValueAt(validBody(), leaf.keys, bad), as: platformA })
        expect(reply.status, JSON.stringify(reply.body)).toBe(400)
        expect(isErrorShape(reply.body)).toBe(true)
        expect(reply.body.code).toBe("INVALID_INPUT")
        const fields = (reply.body.details?.errors ?? []).map((e: { field: string }) => e.field)
        expect(fields, JSON.stringify(reply.body)).toContain(leaf.path)
        const after = await api.call("GET", "/config", { as: platformA })
        expect(after.body.embeddedWalletConfig).toBeUndefined()
      } finally {
        await api.dispose()
      }
    }
  )
})

describe("a configuration stored before the formats were checked", () => {
  it("is still answered by GET /config (200, the values as stored)", async () => {
    const platform = platformFromConfig({ id: "legacy", clientId: "legacy", clientSecret: "secret-legacy-1" })
    const context = await Effect.runPromise(Layer.build(Layer.merge(memoryLayer([platform]), LoopbackWebhookSenderLayer)).pipe(Effect.scoped))
    await Effect.runPromise(
      Effect.gen(function*() {
        const store = yield* Store
        const base = defaultConfig(platform, "2025-01-01T00:00:00.000Z")
        yield* store.transact((uow) =>
          uow.putPlatformConfig({
            platformId: platform.id,
            config: { ...base, embeddedWalletConfig: { sendFromEmailAddress: "nope", logoUrl: "not a uri" }, cardTokenization2faConfig: { email: { fromAddress: "also nope" } } }
          })
        )
      }).pipe(Effect.provide(context))
    )
    const { handler, dispose } = makeWebHandler({ services: Layer.succeedContext(context), schedulerIntervalMillis: false })
    try {
      const reply = await readReply(await handler(new Request("http://test/2025-10-13/config", { headers: { authorization: basic(platform) } })))
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      expect(reply.body.embeddedWalletConfig).toEqual({ sendFromEmailAddress: "nope", logoUrl: "not a uri" })
      schemaConforms("PlatformConfig", { ...reply.body, embeddedWalletConfig: {}, cardTokenization2faConfig: {} }, "GET /config of a legacy configuration")
    } finally {
      await dispose()
    }
  })
})
