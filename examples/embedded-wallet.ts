/**
 * An embedded-wallet app against the reference server, with the real client libraries:
 * register an EMAIL_OTP credential, log in with the sandbox OTP (`@turnkey/crypto`),
 * sign the two-leg retry with the TEK (`@turnkey/api-key-stamper`), then turn wallet
 * privacy on with the session key. The flows: docs/embedded-wallets.md.
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
  const { address } = yield* serveReference({ services: servicesFor({ kind: "memory" }, [platform]), host: "127.0.0.1", port: 0 })
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
  const expect = (ok: boolean, what: string) => ok ? Effect.void : Effect.fail(new Error(what))

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
  yield* expect(first.status === 202, "the OTP verify's first leg answers 202")
  const stamper = new ApiKeyStamper({ apiPublicKey: tek.publicKey, apiPrivateKey: tek.privateKey })
  const stampOf = (payload: string) => Effect.promise(() => stamper.stamp(payload).then((s) => s.stampHeaderValue))
  const session = yield* call("POST", `/auth/credentials/${credential.body["id"]}/verify`, verifyBody, {
    "service-wallet-signature": yield* stampOf(first.body["payloadToSign"]),
    "request-id": first.body["requestId"]
  })
  yield* expect(session.status === 200, "the signed retry issues a session")
  yield* Console.log(`session ${session.body["id"]} until ${session.body["expiresAt"]}`)

  // A signed wallet action: the TEK is the session key.
  const patch = yield* call("PATCH", `/internal-accounts/${accountId}`, { privateEnabled: true })
  const done = yield* call("PATCH", `/internal-accounts/${accountId}`, { privateEnabled: true }, {
    "service-wallet-signature": yield* stampOf(patch.body["payloadToSign"]),
    "request-id": patch.body["requestId"]
  })
  yield* expect(done.status === 200 && done.body["privateEnabled"] === true, "privacy is on")
  yield* Console.log("wallet privacy on; shutting down")
})

NodeRuntime.runMain(Effect.scoped(main))
