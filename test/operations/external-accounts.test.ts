/**
 * The operations without HTTP, as an embedder calls them: ports from the memory
 * adapter, time from TestClock, deterministic ids from a seed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import type { CustomerExternalAccountCreateRequest } from "../../src/domain/external-account.js"
import { createCustomer } from "../../src/operations/customers.js"
import {
  createCustomerExternalAccount,
  getExternalAccount,
  listExternalAccounts
} from "../../src/operations/external-accounts.js"
import { Events } from "../../src/ports/events.js"
import { platformA } from "../support/api.js"

const layer = () => memoryLayer([platformA], { seed: 42 })

const usd = (customerId: string, routingNumber: string): CustomerExternalAccountCreateRequest => ({
  customerId,
  currency: "USD",
  accountInfo: {
    accountType: "USD_ACCOUNT",
    accountNumber: "123456789",
    routingNumber,
    bankAccountType: "CHECKING",
    beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" }
  }
})

describe("external-account operations", () => {
  it.effect("a status change appends EXTERNAL_ACCOUNT.STATUS_UPDATED with the full account", () =>
    Effect.gen(function*() {
      const customer = yield* createCustomer(platformA, { customerType: "INDIVIDUAL", fullName: "Ada Lovelace" })
      const account = yield* createCustomerExternalAccount(platformA, usd(customer.id, "021000901"))
      assert.strictEqual(account.status, "PENDING")
      const events = yield* Events
      assert.deepStrictEqual(yield* events.list(platformA.id), [])

      yield* TestClock.adjust("3 days")
      const after = yield* getExternalAccount(platformA, { kind: "customer" }, account.id)
      assert.strictEqual(after.status, "ACTIVE")
      const emitted = yield* events.list(platformA.id)
      assert.strictEqual(emitted.length, 1)
      assert.strictEqual(emitted[0]!.type, "EXTERNAL_ACCOUNT.STATUS_UPDATED")
      assert.match(emitted[0]!.id, /^Webhook:/)
      assert.deepStrictEqual(emitted[0]!.data, after)
      // reading again does not emit again
      yield* listExternalAccounts(platformA, { kind: "customer" }, {})
      assert.strictEqual((yield* events.list(platformA.id)).length, 1)
    }).pipe(Effect.provide(layer())))

  it.effect("ids are deterministic for a seed", () =>
    Effect.gen(function*() {
      const first = yield* createCustomer(platformA, { customerType: "INDIVIDUAL", fullName: "Seed" }).pipe(Effect.provide(layer()))
      const again = yield* createCustomer(platformA, { customerType: "INDIVIDUAL", fullName: "Seed" }).pipe(Effect.provide(layer()))
      assert.strictEqual(first.id, again.id)
      assert.match(first.id, /^Customer:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    }))

  it.effect("a refused create leaves nothing behind", () =>
    Effect.gen(function*() {
      const customer = yield* createCustomer(platformA, { customerType: "INDIVIDUAL", fullName: "Ada" })
      const bad = yield* Effect.exit(createCustomerExternalAccount(platformA, { ...usd(customer.id, "021000021"), currency: "EUR" }))
      assert.isTrue(Exit.isFailure(bad))
      const list = yield* listExternalAccounts(platformA, { kind: "customer" }, {})
      assert.strictEqual(list.totalCount, 0)
    }).pipe(Effect.provide(layer())))
})
