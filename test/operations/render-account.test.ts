/**
 * An internal account as answered (`renderAccount`): its fields in the reference order
 * (id, customerId, type, status, balance, totalBalance, fundingPaymentInstructions,
 * privateEnabled, createdAt, updatedAt), the optional ones only where they belong, for
 * customer and platform accounts, wallets and others; and exactly what the schema's
 * encoder makes of it (the same JSON text), so the shapes it is built from stay the schema's.
 */
import { Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { InternalAccount } from "../../src/domain/internal-account.js"
import { renderAccount } from "../../src/operations/money/accounts.js"
import type { InternalAccountRecord } from "../../src/ports/money.js"

const record: fc.Arbitrary<InternalAccountRecord> = fc.record({
  platformId: fc.constant("p"),
  id: fc.uuid().map((u) => `InternalAccount:${u}`),
  customerId: fc.option(fc.uuid().map((u) => `Customer:${u}`), { nil: null }),
  type: fc.constantFrom("INTERNAL_FIAT", "INTERNAL_CRYPTO", "EMBEDDED_WALLET"),
  status: fc.constantFrom("PENDING", "ACTIVE", "CLOSED", "FROZEN", "FAILED"),
  currency: fc.constantFrom("USD", "EUR", "MXN", "USDC", "XYZ"),
  privateEnabled: fc.boolean(),
  createdAt: fc.constant("2026-11-27T10:00:00.000Z"),
  updatedAt: fc.constant("2026-11-27T11:00:00.000Z")
}, { requiredKeys: ["platformId", "id", "customerId", "type", "status", "currency", "createdAt", "updatedAt"] })

describe("renderAccount", () => {
  it("answers the fields in the reference order, customerId and privateEnabled only where they belong", () => {
    fc.assert(
      fc.property(record, fc.integer({ min: 0, max: 1_000_000 }), (rec, balance) => {
        const shown = renderAccount(rec, balance)
        const keys = [
          "id",
          ...(rec.customerId === null ? [] : ["customerId"]),
          "type",
          "status",
          "balance",
          "totalBalance",
          "fundingPaymentInstructions",
          ...(rec.type === "EMBEDDED_WALLET" ? ["privateEnabled"] : []),
          "createdAt",
          "updatedAt"
        ]
        expect(Object.keys(shown)).toStrictEqual(keys)
        expect(shown.balance).toStrictEqual({ amount: balance, currency: expect.objectContaining({ code: rec.currency }) })
        expect(shown.totalBalance).toBe(shown.balance)
        if (rec.type === "EMBEDDED_WALLET") expect(shown.privateEnabled).toBe(rec.privateEnabled ?? false)
        if (rec.customerId !== null) expect(shown.customerId).toBe(rec.customerId)
      }),
      { numRuns: 200 }
    )
  })

  it("is what the schema encodes, to the JSON text, and decodes to itself", () => {
    const encode = Schema.encodeUnknownSync(InternalAccount)
    const decode = Schema.decodeUnknownSync(InternalAccount)
    fc.assert(
      fc.property(record, fc.integer({ min: 0, max: 1_000_000 }), (rec, balance) => {
        const shown = renderAccount(rec, balance)
        const encoded = encode(shown)
        expect(JSON.stringify(shown)).toBe(JSON.stringify(encoded))
        expect(Object.keys(shown)).toStrictEqual(Object.keys(encoded))
        expect(decode(encoded)).toStrictEqual(shown)
        expect(Object.values(shown)).not.toContain(null)
      }),
      { numRuns: 200 }
    )
  })
})
