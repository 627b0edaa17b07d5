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
import { runAllDueTimers } from "../../src/operations/scheduler.js"
import { Store } from "../../src/ports/store.js"
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
      const store = yield* Store
      assert.deepStrictEqual((yield* store.events.list(platformA.id)).map((e) => e.event), [])

      // Nothing moves until the scheduler runs: a read does not apply due moves.
      yield* TestClock.adjust("3 days")
      assert.strictEqual((yield* getExternalAccount(platformA, { kind: "customer" }, account.id)).status, "PENDING")
      assert.strictEqual(yield* runAllDueTimers.pipe(Effect.as(true)), true)
      const after = yield* getExternalAccount(platformA, { kind: "customer" }, account.id)
      assert.strictEqual(after.status, "ACTIVE")
      // The move happened when it fell due: three days after the account was created.
      assert.strictEqual(Date.parse(after.updatedAt) - Date.parse(account.createdAt), 3 * 86_400_000)
      const emitted = (yield* store.events.list(platformA.id)).map((e) => e.event)
      assert.strictEqual(emitted.length, 1)
      assert.strictEqual(emitted[0]!.type, "EXTERNAL_ACCOUNT.STATUS_UPDATED")
      assert.match(emitted[0]!.id, /^Webhook:/)
      assert.deepStrictEqual(emitted[0]!.data, after)
      // reading again, or another scheduler pass, does not emit again
      yield* listExternalAccounts(platformA, { kind: "customer" }, {})
      yield* runAllDueTimers
      assert.strictEqual(((yield* store.events.list(platformA.id)).map((e) => e.event)).length, 1)
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
