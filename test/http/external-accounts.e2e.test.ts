import { ed25519 } from "@noble/curves/ed25519.js"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { eip191Digest, evmAddressOf } from "../../src/crypto/wallet-ownership.js"
import { type Api, evmWallet, individual, isErrorShape, makeApi, platformA, platformB, usdAccount } from "../support/api.js"

let api: Api
beforeEach(() => {
  api = makeApi()
})
afterEach(async () => {
  await api.dispose()
})

const newCustomer = async (as = platformA, extra: Record<string, unknown> = {}) => {
  const r = await api.call("POST", "/customers", { body: individual("Ada Lovelace", extra), as })
  expect(r.status).toBe(201)
  return r.body.id as string
}

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
const base58 = (bytes: Uint8Array): string => {
  let n = 0n
  for (const b of bytes) n = n * 256n + BigInt(b)
  let s = ""
  while (n > 0n) {
    s = B58[Number(n % 58n)] + s
    n /= 58n
  }
  for (const b of bytes) {
    if (b !== 0) break
    s = "1" + s
  }
  return s
}

const signEip191 = (secretKey: Uint8Array, message: string): string => {
  const sig = secp256k1.sign(eip191Digest(message), secretKey, { prehash: false, format: "recovered" })
  const out = new Uint8Array(65)
  out.set(sig.subarray(1), 0)
  out[64] = sig[0]! + 27
  return `0x${Buffer.from(out).toString("hex")}`
}

describe("POST /customers/external-accounts", () => {
  it("creates a USD account: 201 with the response shape", async () => {
    const customerId = await newCustomer()
    const r = await api.call("POST", "/customers/external-accounts", { body: usdAccount(customerId, "123456789", { bankName: "Bank" }) })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({
      customerId,
      status: "ACTIVE",
      currency: "USD",
      defaultUmaDepositAccount: false,
      beneficiaryVerificationStatus: "MATCHED",
      beneficiaryVerifiedData: { fullName: "Ada Lovelace" },
      accountInfo: { accountType: "USD_ACCOUNT", accountNumber: "123456789", paymentRails: expect.arrayContaining(["ACH", "WIRE"]) }
    })
    expect(r.body.id).toMatch(/^ExternalAccount:[0-9a-f-]{36}$/)
  })

  it("rule 1: customerId is required", async () => {
    const { customerId: _, ...body } = usdAccount("x")
    const r = await api.call("POST", "/customers/external-accounts", { body })
    expect(r.status).toBe(400)
    expect(r.body.details.errors).toContainEqual(expect.objectContaining({ field: "customerId", constraint: "required" }))
  })

  it("customerId must be an active customer of this platform", async () => {
    const other = await newCustomer(platformB)
    for (const id of [other, "Customer:00000000-0000-4000-8000-000000000000"]) {
      const r = await api.call("POST", "/customers/external-accounts", { body: usdAccount(id) })
      expect(r.status).toBe(400)
      expect(r.body.details.errors[0]).toMatchObject({ field: "customerId", constraint: "exists" })
    }
  })

  it("rule 2: USD without bankAccountType is rejected", async () => {
    const customerId = await newCustomer()
    const body = usdAccount(customerId)
    const { bankAccountType: _, ...info } = body.accountInfo
    const r = await api.call("POST", "/customers/external-accounts", { body: { ...body, accountInfo: info } })
    expect(r.status).toBe(400)
    expect(r.body.details.errors).toEqual([expect.objectContaining({ field: "accountInfo.bankAccountType", constraint: "required" })])
  })

  it("rule 3: the bankAccountType rule also holds on POST /platform/external-accounts", async () => {
    const { customerId: _, ...body } = usdAccount("x")
    const { bankAccountType: _b, ...info } = body.accountInfo
    const r = await api.call("POST", "/platform/external-accounts", { body: { ...body, accountInfo: info } })
    expect(r.status).toBe(400)
  })

  it("platformAccountId is at most 255 characters", async () => {
    const customerId = await newCustomer()
    const ok = await api.call("POST", "/customers/external-accounts", { body: { ...usdAccount(customerId, "1"), platformAccountId: "p".repeat(255) } })
    expect(ok.status).toBe(201)
    const bad = await api.call("POST", "/customers/external-accounts", { body: { ...usdAccount(customerId, "2"), platformAccountId: "p".repeat(256) } })
    expect(bad.status).toBe(400)
    expect(bad.body.details.errors[0].field).toBe("platformAccountId")
  })

  it("409 DUPLICATE_EXTERNAL_ACCOUNT for an equivalent account; names and platformAccountId do not matter", async () => {
    const customerId = await newCustomer()
    const first = await api.call("POST", "/customers/external-accounts", { body: usdAccount(customerId, "555000111") })
    expect(first.status).toBe(201)
    const again = usdAccount(customerId, "555 000 111", { beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Someone Else" } })
    const r = await api.call("POST", "/customers/external-accounts", { body: { ...again, platformAccountId: "other" } })
    expect(r.status).toBe(409)
    expect(r.body).toMatchObject({ code: "DUPLICATE_EXTERNAL_ACCOUNT", details: { existingExternalAccountId: first.body.id } })
    // the same account for another customer is not a duplicate
    const other = await newCustomer()
    expect((await api.call("POST", "/customers/external-accounts", { body: usdAccount(other, "555000111") })).status).toBe(201)
  })

  it("after deletion the same account can be registered again", async () => {
    const customerId = await newCustomer()
    const first = await api.call("POST", "/customers/external-accounts", { body: usdAccount(customerId, "777") })
    expect((await api.call("DELETE", `/customers/external-accounts/${first.body.id}`)).status).toBe(204)
    expect((await api.call("POST", "/customers/external-accounts", { body: usdAccount(customerId, "777") })).status).toBe(201)
  })

  describe("beneficiary name verification by the 1xx suffix", () => {
    const rows: ReadonlyArray<[string, string | undefined]> = [
      ["102", "NOT_MATCHED"],
      ["103", "PARTIAL_MATCH"],
      ["104", "PENDING"],
      ["106", "UNSUPPORTED"],
      ["107", "CHECKED_BY_RECEIVING_FI"],
      ["101", "MATCHED"]
    ]
    for (const [suffix, status] of rows) {
      it(`...${suffix} -> ${status}`, async () => {
        const customerId = await newCustomer()
        const r = await api.call("POST", "/customers/external-accounts", { body: usdAccount(customerId, `999${suffix}`) })
        expect(r.status).toBe(201)
        expect(r.body.beneficiaryVerificationStatus).toBe(status)
      })
    }
    it("...105 -> 400 invalid account, nothing stored", async () => {
      const customerId = await newCustomer()
      const r = await api.call("POST", "/customers/external-accounts", { body: usdAccount(customerId, "999105") })
      expect(r.status).toBe(400)
      expect(r.body.code).toBe("INVALID_BANK_ACCOUNT")
      expect((await api.call("GET", `/customers/external-accounts?customerId=${customerId}`)).body.totalCount).toBe(0)
    })
    it("reads the IBAN of an EUR account", async () => {
      const customerId = await newCustomer()
      const r = await api.call("POST", "/customers/external-accounts", {
        body: {
          customerId,
          currency: "EUR",
          accountInfo: {
            accountType: "EUR_ACCOUNT",
            iban: "DE89370400440532013102",
            beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada", countryOfResidence: "DE" }
          }
        }
      })
      expect(r.body.beneficiaryVerificationStatus).toBe("NOT_MATCHED")
    })
  })

  describe("default UMA deposit account", () => {
    it("setting a new default replaces the old one", async () => {
      const customerId = await newCustomer()
      const a = await api.call("POST", "/customers/external-accounts", { body: { ...usdAccount(customerId, "1"), defaultUmaDepositAccount: true } })
      const b = await api.call("POST", "/customers/external-accounts", { body: { ...usdAccount(customerId, "2"), defaultUmaDepositAccount: true } })
      expect(a.body.defaultUmaDepositAccount).toBe(true)
      expect(b.body.defaultUmaDepositAccount).toBe(true)
      const oldOne = await api.call("GET", `/customers/external-accounts/${a.body.id}`)
      expect(oldOne.body.defaultUmaDepositAccount).toBe(false)
    })
  })

  describe("micro-entry validation of new US accounts (sandbox: routing number suffix)", () => {
    it("...901: PENDING, then ACTIVE after 3 days, with STATUS_UPDATED", async () => {
      const customerId = await newCustomer()
      const r = await api.call("POST", "/customers/external-accounts", { body: usdAccount(customerId, "1", { routingNumber: "021000901" }) })
      expect(r.body.status).toBe("PENDING")
      await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 2 * 86400 } })
      expect((await api.call("GET", `/customers/external-accounts/${r.body.id}`)).body.status).toBe("PENDING")
      await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 86400 } })
      expect((await api.call("GET", `/customers/external-accounts/${r.body.id}`)).body.status).toBe("ACTIVE")
    })
    it("...902: PENDING, then INACTIVE", async () => {
      const customerId = await newCustomer()
      const r = await api.call("POST", "/customers/external-accounts", { body: usdAccount(customerId, "1", { routingNumber: "021000902" }) })
      await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 3 * 86400 } })
      const list = await api.call("GET", `/customers/external-accounts?customerId=${customerId}`)
      expect(list.body.data[0]).toMatchObject({ id: r.body.id, status: "INACTIVE" })
    })
  })
})

describe("list, get, delete", () => {
  it("lists with currency and customerId filters and cursor pagination", async () => {
    const c1 = await newCustomer()
    const c2 = await newCustomer()
    for (let i = 0; i < 5; i++) await api.call("POST", "/customers/external-accounts", { body: usdAccount(c1, `10${i}00`) })
    await api.call("POST", "/customers/external-accounts", { body: usdAccount(c2, "20000") })
    await api.call("POST", "/customers/external-accounts", {
      body: { customerId: c2, currency: "MXN", accountInfo: { accountType: "MXN_ACCOUNT", clabeNumber: "032180000118359719", beneficiary: { beneficiaryType: "BUSINESS", legalName: "ACME" } } }
    })
    const page1 = await api.call("GET", `/customers/external-accounts?customerId=${c1}&limit=2`)
    expect(page1.body).toMatchObject({ hasMore: true, totalCount: 5 })
    expect(page1.body.data).toHaveLength(2)
    const page2 = await api.call("GET", `/customers/external-accounts?customerId=${c1}&limit=2&cursor=${page1.body.nextCursor}`)
    const page3 = await api.call("GET", `/customers/external-accounts?customerId=${c1}&limit=2&cursor=${page2.body.nextCursor}`)
    expect(page3.body).toMatchObject({ hasMore: false, totalCount: 5 })
    expect(page3.body.nextCursor).toBe(undefined)
    const ids = [...page1.body.data, ...page2.body.data, ...page3.body.data].map((a: { id: string }) => a.id)
    expect(new Set(ids).size).toBe(5)
    const mxn = await api.call("GET", "/customers/external-accounts?currency=MXN")
    expect(mxn.body.data.map((a: { currency: string }) => a.currency)).toEqual(["MXN"])
    const all = await api.call("GET", "/customers/external-accounts")
    expect(all.body.totalCount).toBe(7)
  })

  it("a bad cursor is a 400", async () => {
    const r = await api.call("GET", "/customers/external-accounts?cursor=nonsense")
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0].field).toBe("cursor")
  })

  it("customer and platform accounts are separate lists and separate ids", async () => {
    const c = await newCustomer()
    const mine = await api.call("POST", "/customers/external-accounts", { body: usdAccount(c) })
    const { customerId: _, ...platformBody } = usdAccount("x")
    const plat = await api.call("POST", "/platform/external-accounts", { body: platformBody })
    expect(plat.status).toBe(201)
    expect(plat.body.customerId).toBe(null)
    expect((await api.call("GET", "/platform/external-accounts")).body.data.map((a: { id: string }) => a.id)).toEqual([plat.body.id])
    expect((await api.call("GET", `/platform/external-accounts/${mine.body.id}`)).status).toBe(404)
    expect((await api.call("GET", `/customers/external-accounts/${plat.body.id}`)).status).toBe(404)
    expect((await api.call("DELETE", `/platform/external-accounts/${plat.body.id}`)).status).toBe(204)
    expect((await api.call("GET", `/platform/external-accounts/${plat.body.id}`)).status).toBe(404)
  })

  it("unknown ids are 404 in the error shape", async () => {
    for (const [m, p] of [["GET", "/customers/external-accounts/ExternalAccount:nope"], ["DELETE", "/customers/external-accounts/x"]] as const) {
      const r = await api.call(m, p)
      expect(r.status).toBe(404)
      expect(isErrorShape(r.body)).toBe(true)
    }
  })
})

describe("trusted beneficiaries", () => {
  it("a trusted beneficiary cannot be deleted (409 BENEFICIARY_TRUSTED) until untrusted", async () => {
    const c = await newCustomer(platformA, { region: "DE" })
    const acct = await api.call("POST", "/customers/external-accounts", { body: usdAccount(c) })
    const id = acct.body.id
    const start = await api.call("POST", `/customers/external-accounts/${id}/trust`)
    expect(start.status).toBe(200)
    expect((await api.call("POST", `/customers/external-accounts/${id}/trust/confirm`, { body: { code: "000000" } })).status).toBe(400)
    const confirmed = await api.call("POST", `/customers/external-accounts/${id}/trust/confirm`, { body: { code: "123456" } })
    expect(confirmed.body).toEqual({ trusted: true })
    const del = await api.call("DELETE", `/customers/external-accounts/${id}`)
    expect(del.status).toBe(409)
    expect(del.body.code).toBe("BENEFICIARY_TRUSTED")
    await api.call("POST", `/customers/external-accounts/${id}/untrust`)
    expect((await api.call("POST", `/customers/external-accounts/${id}/untrust/confirm`, { body: { code: "123456" } })).body).toEqual({ trusted: false })
    expect((await api.call("DELETE", `/customers/external-accounts/${id}`)).status).toBe(204)
  })
  it("customers outside SCA regions get 409 from trust", async () => {
    const c = await newCustomer(platformA, { region: "US" })
    const acct = await api.call("POST", "/customers/external-accounts", { body: usdAccount(c) })
    const r = await api.call("POST", `/customers/external-accounts/${acct.body.id}/trust`)
    expect(r.status).toBe(409)
  })
})

describe("trust confirmation proofs (the reference's ScaAuthorization fields)", () => {
  it("takes a code, or a passkeyAssertion with its origin; refuses neither, and an assertion without origin", async () => {
    const c = await newCustomer(platformA, { region: "FR" })
    const acct = await api.call("POST", "/customers/external-accounts", { body: usdAccount(c, "888000111") })
    const id = acct.body.id
    expect((await api.call("POST", `/customers/external-accounts/${id}/trust`)).status).toBe(200)
    const none = await api.call("POST", `/customers/external-accounts/${id}/trust/confirm`, { body: {} })
    expect(none.status).toBe(400)
    expect(none.body.details.errors[0].field).toBe("code")
    const noOrigin = await api.call("POST", `/customers/external-accounts/${id}/trust/confirm`, { body: { passkeyAssertion: { id: "x" } } })
    expect(noOrigin.status).toBe(400)
    expect(noOrigin.body.details.errors[0].field).toBe("origin")
    // A well-formed passkey proof is read, and answered: this challenge's factor is SMS_OTP.
    const passkey = await api.call("POST", `/customers/external-accounts/${id}/trust/confirm`, {
      body: { passkeyAssertion: { id: "cred", response: {} }, origin: "https://app.example.com", challengeId: null }
    })
    expect(passkey.status).toBe(400)
    expect(passkey.body.details.factor).toBe("SMS_OTP")
    const ok = await api.call("POST", `/customers/external-accounts/${id}/trust/confirm`, { body: { code: "123456", passkeyAssertion: null, origin: null } })
    expect(ok.body).toEqual({ trusted: true })
  })
})

describe("ownership verification (Travel Rule platform)", () => {
  const travel = platformB

  const firstPartyWallet = async () => {
    const sk = secp256k1.utils.randomSecretKey()
    const address = evmAddressOf(secp256k1.getPublicKey(sk))
    const c = await newCustomer(travel)
    const r = await api.call("POST", "/customers/external-accounts", { body: evmWallet(c, address, { ownershipType: "FIRST_PARTY" }), as: travel })
    expect(r.status).toBe(201)
    expect(r.body.status).toBe("PENDING_OWNERSHIP_VERIFICATION")
    return { sk, id: r.body.id as string }
  }

  it("a wallet without ownershipType is refused on a Travel Rule platform", async () => {
    const c = await newCustomer(travel)
    const r = await api.call("POST", "/customers/external-accounts", { body: evmWallet(c, "0x52908400098527886E0F7030069857D2E4169EE7"), as: travel })
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0].field).toBe("ownershipType")
  })

  it("challenge, sign (EIP-191), verify -> ACTIVE and an EXTERNAL_ACCOUNT.STATUS_UPDATED event", async () => {
    const { sk, id } = await firstPartyWallet()
    const ch = await api.call("POST", `/customers/external-accounts/${id}/challenge`, { body: { method: "WALLET_SIGNATURE" }, as: travel })
    expect(ch.status).toBe(201)
    expect(ch.body.method).toBe("WALLET_SIGNATURE")
    const v = await api.call("POST", `/customers/external-accounts/${id}/verify`, {
      body: { signature: signEip191(sk, ch.body.messageToSign) },
      as: travel
    })
    expect(v.status).toBe(200)
    expect(v.body.status).toBe("ACTIVE")
  })

  it("a wrong signature -> 400 and UNVERIFIED; a new challenge then succeeds", async () => {
    const { sk, id } = await firstPartyWallet()
    const ch = await api.call("POST", `/customers/external-accounts/${id}/challenge`, { body: { method: "WALLET_SIGNATURE" }, as: travel })
    const wrong = signEip191(secp256k1.utils.randomSecretKey(), ch.body.messageToSign)
    const v = await api.call("POST", `/customers/external-accounts/${id}/verify`, { body: { signature: wrong }, as: travel })
    expect(v.status).toBe(400)
    expect((await api.call("GET", `/customers/external-accounts/${id}`, { as: travel })).body.status).toBe("UNVERIFIED")
    const noChallenge = await api.call("POST", `/customers/external-accounts/${id}/verify`, { body: { signature: wrong }, as: travel })
    expect(noChallenge.status).toBe(409)
    const ch2 = await api.call("POST", `/customers/external-accounts/${id}/challenge`, { body: { method: "WALLET_SIGNATURE" }, as: travel })
    expect((await api.call("GET", `/customers/external-accounts/${id}`, { as: travel })).body.status).toBe("PENDING_OWNERSHIP_VERIFICATION")
    const ok = await api.call("POST", `/customers/external-accounts/${id}/verify`, { body: { signature: signEip191(sk, ch2.body.messageToSign) }, as: travel })
    expect(ok.body.status).toBe("ACTIVE")
  })

  it("a signature over a different message is rejected", async () => {
    const { sk, id } = await firstPartyWallet()
    await api.call("POST", `/customers/external-accounts/${id}/challenge`, { body: { method: "WALLET_SIGNATURE" }, as: travel })
    const v = await api.call("POST", `/customers/external-accounts/${id}/verify`, { body: { signature: signEip191(sk, "something else") }, as: travel })
    expect(v.status).toBe(400)
  })

  it("an expired challenge is rejected", async () => {
    const { sk, id } = await firstPartyWallet()
    const ch = await api.call("POST", `/customers/external-accounts/${id}/challenge`, { body: { method: "WALLET_SIGNATURE" }, as: travel })
    await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 11 * 60 }, as: travel })
    const v = await api.call("POST", `/customers/external-accounts/${id}/verify`, { body: { signature: signEip191(sk, ch.body.messageToSign) }, as: travel })
    expect(v.status).toBe(400)
    expect(v.body.details.reason).toBe("expired")
  })

  it("Solana wallets verify with Ed25519 on the platform endpoints", async () => {
    const sk = ed25519.utils.randomSecretKey()
    const address = base58(ed25519.getPublicKey(sk))
    const r = await api.call("POST", "/platform/external-accounts", {
      body: { currency: "USDC", ownershipType: "FIRST_PARTY", accountInfo: { accountType: "SOLANA_WALLET", address } },
      as: travel
    })
    expect(r.body.status).toBe("PENDING_OWNERSHIP_VERIFICATION")
    const ch = await api.call("POST", `/platform/external-accounts/${r.body.id}/challenge`, { body: { method: "WALLET_SIGNATURE" }, as: travel })
    const signature = base58(ed25519.sign(new TextEncoder().encode(ch.body.messageToSign), sk))
    const v = await api.call("POST", `/platform/external-accounts/${r.body.id}/verify`, { body: { signature }, as: travel })
    expect(v.body.status).toBe("ACTIVE")
  })

  it("LIVENESS: the sandbox's hosted check passes after 30 seconds", async () => {
    const { id } = await firstPartyWallet()
    const ch = await api.call("POST", `/customers/external-accounts/${id}/challenge`, { body: { method: "LIVENESS" }, as: travel })
    expect(ch.body.verificationLink).toMatch(/^https:\/\//)
    await api.call("POST", "/sandbox/clock/advance", { body: { seconds: 31 }, as: travel })
    expect((await api.call("GET", `/customers/external-accounts/${id}`, { as: travel })).body.status).toBe("ACTIVE")
  })

  it("challenges apply only to FIRST_PARTY self-custody wallets", async () => {
    const c = await newCustomer(travel)
    const acct = await api.call("POST", "/customers/external-accounts", { body: usdAccount(c), as: travel })
    const r = await api.call("POST", `/customers/external-accounts/${acct.body.id}/challenge`, { body: { method: "WALLET_SIGNATURE" }, as: travel })
    expect(r.status).toBe(409)
  })
})
