/**
 * The exported embedded-wallet auth model (payments-service/testing) against the
 * reference server in-process, with the real client libraries as the wallet app's kit:
 * `@turnkey/crypto`, `@turnkey/api-key-stamper` and a software WebAuthn authenticator.
 * Bounded by default; FC_NUM_RUNS raises the number of runs; FC_SEED and FC_PATH (as
 * fast-check prints them on a failure) replay one.
 */
import { ApiKeyStamper } from "@turnkey/api-key-stamper"
import { decryptCredentialBundle, encryptOtpCodeToBundle, generateP256KeyPair } from "@turnkey/crypto"
import { p256 } from "@noble/curves/nist.js"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import {
  AddCredential,
  AdvanceWalletClock,
  agree,
  CreateDelegatedKey,
  Login,
  RevokeDelegatedKey,
  type WalletApiClient,
  walletAuthCommands,
  type WalletClientKit,
  type WalletKeyPair,
  type WalletReal,
  setupWalletWorld,
  SignedAction
} from "../../src/testing/wallet-auth-model.js"
import { createCredential, makeAssertion, makeRegistration, type SoftwareCredential } from "../crypto/support/authenticator.js"
import { defaultTestStore, jsonClientOf, makeApi } from "../support/api.js"
import { numRuns, replay } from "../support/runs.js"

const store = defaultTestStore()
const platform = platformFromConfig({ id: "wallet-model", clientId: "wallet-model", clientSecret: "wallet-model-secret", regulated: true, embeddedWallets: {} })
const api = makeApi([platform], undefined, { store })
afterAll(() => api.dispose())

const client: WalletApiClient = jsonClientOf(api)

const pairOf = (privateKey: string): WalletKeyPair => {
  const priv = Buffer.from(privateKey, "hex")
  return {
    privateKey,
    publicKey: Buffer.from(p256.getPublicKey(priv, true)).toString("hex"),
    publicKeyUncompressed: Buffer.from(p256.getPublicKey(priv, false)).toString("hex")
  }
}

/** The wallet app's side, from the real client libraries. */
const kit: WalletClientKit = {
  newKeyPair: () => pairOf(generateP256KeyPair().privateKey),
  stamp: async (key, payload) =>
    (await new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey, runtimeOverride: "node" }).stamp(payload)).stampHeaderValue,
  encryptOtp: (code, bundle, tekPublicKey) => encryptOtpCodeToBundle(code, bundle, tekPublicKey, JSON.parse(bundle).enclaveQuorumPublic),
  decryptSessionKey: (sealed, clientPrivateKey) => pairOf(decryptCredentialBundle(sealed, clientPrivateKey)),
  passkey: {
    create: () => createCredential(),
    register: (handle, p) => makeRegistration({ credential: handle as SoftwareCredential, ...p }),
    assert: (handle, p) => makeAssertion({ credential: handle as SoftwareCredential, ...p })
  }
}

const real: WalletReal = { api: client, kit }

let runs = 0
const tag = () => `wm${++runs}-${Math.random().toString(36).slice(2, 8)}`

describe(`embedded-wallet auth model (${store})`, () => {
  it("credentials and sessions agree with the model across any sequence of commands", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(walletAuthCommands(), { maxCommands: store === "memory" ? 30 : 20, size: "max" }), async (cmds) => {
        const model = await setupWalletWorld(client, tag())
        await fc.asyncModelRun(() => ({ model, real }), cmds)
      }),
      { numRuns: numRuns(store === "memory" ? 15 : 6), ...replay() }
    )
  }, 120_000)

  it("rate windows on the clock: a sixth OTP login within a minute is 429 for both, a new window 68 s later is not", async () => {
    const model = await setupWalletWorld(client, tag())
    await new AddCredential("EMAIL_OTP", 0, 0).run(model, real)
    for (let i = 0; i < 6; i++) await new Login(0, true, false).run(model, real)
    expect(model.sessions.size).toBe(5)
    await agree(model, real)
    await new AdvanceWalletClock(4).run(model, real)
    await new Login(0, true, false).run(model, real)
    expect(model.sessions.size).toBe(6)
    await agree(model, real)
  })

  it("delegated keys: abandoned PENDING, ACTIVE, 409 while ACTIVE, a dead key refused, revoked; the list agrees, and a stale list is caught", async () => {
    const model = await setupWalletWorld(client, tag())
    expect(model.cardId, "the reference server issues the wallet a card").toMatch(/^Card:/)
    await new AddCredential("EMAIL_OTP", 0, 0).run(model, real)
    await new Login(0, true, false).run(model, real)
    const step = async (cmd: { run: (m: typeof model, r: WalletReal) => Promise<void> }) => {
      await cmd.run(model, real)
      await agree(model, real)
    }
    await step(new CreateDelegatedKey(0, false, true))
    await step(new CreateDelegatedKey(0, true, false)) // no dead key yet: a stranger's, refused
    await step(new CreateDelegatedKey(0, false, false))
    expect([...model.delegatedKeys.values()].sort()).toEqual(["ACTIVE", "PENDING"])
    await step(new CreateDelegatedKey(0, false, false)) // 409: one is ACTIVE
    await step(new RevokeDelegatedKey(0)) // the PENDING one: 400
    expect([...model.delegatedKeys.values()].sort()).toEqual(["ACTIVE", "PENDING"])
    const before = await client.call("GET", `/auth/delegated-keys?accountId=${model.accountId}`)
    await step(new RevokeDelegatedKey(1))
    expect([...model.delegatedKeys.values()].sort()).toEqual(["PENDING", "REVOKED"])
    const stale: WalletReal = {
      kit,
      api: { call: (method, path, body, headers) => (path.startsWith("/auth/delegated-keys?") ? Promise.resolve(before) : client.call(method, path, body, headers)) }
    }
    await expect(agree(model, stale)).rejects.toThrow(/delegated keys: the API lists/)
    await step(new CreateDelegatedKey(0, false, false))
    expect([...model.delegatedKeys.values()].sort()).toEqual(["ACTIVE", "PENDING", "REVOKED"])
  })

  it("catches an implementation that keeps listing a session past its lifetime", async () => {
    const model = await setupWalletWorld(client, tag())
    await new AddCredential("EMAIL_OTP", 0, 0).run(model, real)
    await new Login(0, true, false).run(model, real)
    expect(model.sessions.size).toBe(1)
    await agree(model, real)
    await new SignedAction(0, false).run(model, real)
    // A server whose session list ignores the clock: the model notices after 901 seconds.
    const sessionsBefore = await client.call("GET", `/auth/sessions?accountId=${model.accountId}`)
    const stale: WalletReal = {
      kit,
      api: { call: (method, path, body, headers) => (path.startsWith("/auth/sessions?") ? Promise.resolve(sessionsBefore) : client.call(method, path, body, headers)) }
    }
    await new AdvanceWalletClock(53).run(model, stale)
    expect(model.sessions.size).toBe(0)
    await expect(agree(model, stale)).rejects.toThrow(/sessions: the API lists/)
    await agree(model, real)
  })
})
