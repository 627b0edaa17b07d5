/**
 * An embedded-wallet app against the reference server, with the real client libraries:
 * register an EMAIL_OTP credential, log in with the sandbox OTP (`@turnkey/crypto`),
 * sign the two-leg retry with the TEK (`@turnkey/api-key-stamper`), then turn wallet
 * privacy on with the session key. Then a card paid from the wallet: issue it, let the
 * wallet sign for it with a delegated key (three signed legs), fund the wallet, and
 * simulate a purchase (authorization, then clearing). The flows: docs/embedded-wallets.md,
 * docs/cards.md, docs/card-transactions.md.
 *
 *   npm run example:wallet
 */
import { NodeRuntime } from "@effect/platform-node"
import { ApiKeyStamper } from "@turnkey/api-key-stamper"
import { encryptOtpCodeToBundle, generateP256KeyPair } from "@turnkey/crypto"
import { Console, Effect } from "effect"
import { HttpServer } from "effect/http"
// published as: import { platformFromConfig } from "payments-service"
import { platformFromConfig } from "../src/index.js"
// published as: import { API_VERSION, serveReference } from "payments-service/http"
import { API_VERSION, serveReference } from "../src/http/index.js"
// Not a published subpath yet; in this repository: src/server/services.ts
import { servicesFor } from "../src/server/services.js"

// Regulated (KYC approved at creation) and with embedded wallets (the sandbox defaults).
const platform = platformFromConfig({ id: "wallets", clientId: "wallets_client_id", clientSecret: "wallets_client_secret", regulated: true, embeddedWallets: {} })
const authorization = `Basic ${Buffer.from(`${platform.clientId}:${platform.clientSecret}`).toString("base64")}`

const main = Effect.gen(function*() {
  const { address } = yield* serveReference({ services: servicesFor({ kind: "memory" }, [platform], { webhookDestinations: ["loopback"] }), host: "127.0.0.1", port: 0 })
  const base = `${HttpServer.formatAddress(address)}/${API_VERSION}`
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    Effect.tryPromise(async () => {
      const r = await fetch(`${base}${path}`, {
        method,
        headers: { authorization, "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await r.text()
      const parsed = (text === "" ? {} : JSON.parse(text)) as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
      console.log(`${method} ${path}: ${r.status}`)
      return { status: r.status, body: parsed }
    })
  /** Fails the example with what was expected and, when given, the answer that broke it. */
  const expect = (ok: boolean, what: string, reply?: { status: number; body: unknown }) =>
    ok ? Effect.void : Effect.fail(new Error(`expected: ${what}${reply === undefined ? "" : `; got ${reply.status} ${JSON.stringify(reply.body)}`}`))

  const customer = yield* call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Ada Lovelace", email: "ada@example.com" })
  const accounts = yield* call("GET", `/customers/internal-accounts?customerId=${customer.body["id"]}&type=EMBEDDED_WALLET`)
  const accountId = accounts.body["data"][0]["id"] as string

  // The first credential needs platform auth only.
  const credential = yield* call("POST", "/auth/credentials", { type: "EMAIL_OTP", accountId })
  const tek = generateP256KeyPair()
  const challenge = yield* call("POST", `/auth/credentials/${credential.body["id"]}/challenge`, { clientPublicKey: tek.publicKey })
  const targetBundle = challenge.body["otpEncryptionTargetBundle"] as string
  // Pin the signer the server publishes in the bundle; sandbox OTP code: 000000.
  const encryptedOtpBundle = yield* Effect.promise(() => encryptOtpCodeToBundle("000000", targetBundle, tek.publicKey, JSON.parse(targetBundle).enclaveQuorumPublic))
  const verifyBody = { type: "EMAIL_OTP", encryptedOtpBundle }
  const first = yield* call("POST", `/auth/credentials/${credential.body["id"]}/verify`, verifyBody)
  yield* expect(first.status === 202, "the OTP verify's first leg answers 202", first)
  const stamper = new ApiKeyStamper({ apiPublicKey: tek.publicKey, apiPrivateKey: tek.privateKey })
  const stampOf = (payload: string) => Effect.promise(() => stamper.stamp(payload).then((s) => s.stampHeaderValue))
  const session = yield* call("POST", `/auth/credentials/${credential.body["id"]}/verify`, verifyBody, {
    "service-wallet-signature": yield* stampOf(first.body["payloadToSign"]),
    "request-id": first.body["requestId"]
  })
  yield* expect(session.status === 200, "the signed retry issues a session", session)
  yield* Console.log(`session ${session.body["id"]} until ${session.body["expiresAt"]}`)

  // A signed wallet action: the TEK is the session key.
  const patch = yield* call("PATCH", `/internal-accounts/${accountId}`, { privateEnabled: true })
  const done = yield* call("PATCH", `/internal-accounts/${accountId}`, { privateEnabled: true }, {
    "service-wallet-signature": yield* stampOf(patch.body["payloadToSign"]),
    "request-id": patch.body["requestId"]
  })
  yield* expect(done.status === 200 && done.body["privateEnabled"] === true, "privacy is on", done)
  yield* Console.log("wallet privacy on")

  // A virtual card for the customer, funded by the wallet (the card's currency is the wallet's, USDC).
  const card = yield* call("POST", "/cards", { cardholderId: customer.body["id"], form: "VIRTUAL", fundingSources: [accountId] })
  yield* expect(card.status === 201 && card.body["state"] === "ACTIVE", "the card is issued ACTIVE", card)
  const cardId = card.body["id"] as string
  const currency = card.body["currency"] as string

  // The wallet pays for the card only through a delegated key for this funding source, created
  // in three legs with the same body: leg 1 answers a challenge, leg 2 (stamped by the session
  // key) answers a second one, leg 3 (stamped over the second) makes the key ACTIVE.
  const keyBody = { cardId, internalAccountId: accountId, nickname: "Card payments" }
  const leg1 = yield* call("POST", "/auth/delegated-keys", keyBody)
  yield* expect(leg1.status === 202, "leg 1 answers the first challenge (202)", leg1)
  const leg2 = yield* call("POST", "/auth/delegated-keys", keyBody, {
    "service-wallet-signature": yield* stampOf(leg1.body["payloadToSign"]),
    "request-id": leg1.body["requestId"]
  })
  yield* expect(leg2.status === 202, "leg 2 answers the second challenge (202, the key PENDING)", leg2)
  const leg3 = yield* call("POST", "/auth/delegated-keys", keyBody, {
    "service-wallet-signature": yield* stampOf(leg2.body["payloadToSign"]),
    "request-id": leg2.body["requestId"]
  })
  yield* expect(leg3.status === 201 && leg3.body["status"] === "ACTIVE", "leg 3 creates the ACTIVE delegated key", leg3)
  yield* Console.log(`delegated key ${leg3.body["id"]} signs for ${leg3.body["fundingSourceId"]}`)

  // The purchase: 12.50 USDC (6 decimals). A new wallet is empty, so put sandbox money in
  // when the balance is short.
  const price = 12_500_000
  const wallet = yield* call("GET", `/customers/internal-accounts?customerId=${customer.body["id"]}&type=EMBEDDED_WALLET`)
  const before: unknown = wallet.body["data"]?.[0]?.["balance"]?.["amount"]
  yield* expect(typeof before === "number", "the wallet's balance", wallet)
  let available = before as number
  if (available < price) {
    const funded = yield* call("POST", `/sandbox/internal-accounts/${accountId}/fund`, { amount: 50_000_000 })
    available += 50_000_000
    yield* expect(funded.status === 200 && funded.body["balance"]["amount"] === available, "the sandbox funds the wallet", funded)
  }

  // The card network asks to authorize the purchase: approved, the amount held on the wallet.
  const authorized = yield* call("POST", `/sandbox/cards/${cardId}/simulate/authorization`, {
    amount: price,
    currency: { code: currency },
    merchant: { descriptor: "BLUE BOTTLE COFFEE SF", mcc: "5814", country: "US" }
  })
  yield* expect(authorized.status === 202, "the authorization is applied (202)", authorized)
  // The simulation answers the issuer's token; the row itself is listed under the card.
  const rowOf = (token: string) =>
    call("GET", `/transactions?cardId=${cardId}`).pipe(
      Effect.map((r) => (r.body["data"] ?? []).find((row: { issuerTransactionToken: string }) => row.issuerTransactionToken === token))
    )
  const held = yield* rowOf(authorized.body["issuerTransactionToken"])
  yield* expect(held?.["status"] === "AUTHORIZED", "the card transaction is AUTHORIZED", { status: 200, body: held ?? null })

  // The merchant clears the full amount: settled from the hold.
  const cleared = yield* call("POST", `/sandbox/cards/${cardId}/simulate/clearing`, { cardTransactionId: held["id"], amount: price })
  yield* expect(cleared.status === 202, "the clearing is applied (202)", cleared)
  const settled = yield* rowOf(authorized.body["issuerTransactionToken"])
  yield* expect(settled?.["status"] === "SETTLED" && settled["settledAmount"]?.["amount"] === price, "the card transaction is SETTLED", { status: 200, body: settled ?? null })
  yield* Console.log(`card transaction (GET /transactions?cardId=…):\n${JSON.stringify(settled, null, 2)}`)
  // The purchase left the wallet.
  const after = yield* call("GET", `/customers/internal-accounts?customerId=${customer.body["id"]}&type=EMBEDDED_WALLET`)
  yield* expect(after.body["data"]?.[0]?.["balance"]?.["amount"] === available - price, `the wallet holds ${available - price}`, after)
  yield* Console.log(`card purchase settled from the wallet (balance ${available} → ${available - price}); shutting down`)
})

NodeRuntime.runMain(Effect.scoped(main))
