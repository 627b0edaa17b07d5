/**
 * Resident memory per 100,000 stored external accounts, measured in a child process
 * started with --expose-gc: heap and RSS before and after storing them through the
 * operations (the same path the HTTP handlers take).
 */
import { Effect, Layer } from "effect"
import { LoopbackWebhookSenderLayer, memoryLayer } from "../src/adapters/memory/index.js"
import { createCustomer } from "../src/operations/customers.js"
import { createCustomerExternalAccount } from "../src/operations/external-accounts.js"
import { benchPlatform } from "./servers/platform.js"

const gc = (globalThis as { gc?: () => void }).gc

const measure = () => {
  gc?.()
  gc?.()
  const m = process.memoryUsage()
  return { rss: m.rss, heapUsed: m.heapUsed }
}

export async function storeAccounts(count: number) {
  const program = Effect.gen(function*() {
    const customers: Array<string> = []
    for (let i = 0; i < Math.ceil(count / 10); i++) {
      customers.push((yield* createCustomer(benchPlatform, { customerType: "INDIVIDUAL", fullName: `Customer ${i}` })).id)
    }
    const before = measure()
    for (let i = 0; i < count; i++) {
      yield* createCustomerExternalAccount(benchPlatform, {
        customerId: customers[i % customers.length]!,
        currency: "USD",
        accountInfo: {
          accountType: "USD_ACCOUNT",
          accountNumber: `${100000000 + i}0`,
          routingNumber: "021000021",
          bankAccountType: "CHECKING",
          beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Ada Lovelace" }
        }
      })
    }
    const after = measure()
    return { before, after }
  })
  return Effect.runPromise(Effect.provide(program, Layer.merge(memoryLayer([benchPlatform], { seed: 1 }), LoopbackWebhookSenderLayer)))
}

if (process.argv[2] === "child") {
  const count = Number(process.argv[3] ?? "100000")
  const { before, after } = await storeAccounts(count)
  process.send?.({
    count,
    gcExposed: gc !== undefined,
    rssBytes: after.rss - before.rss,
    heapBytes: after.heapUsed - before.heapUsed
  })
}
