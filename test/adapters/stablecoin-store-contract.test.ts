/**
 * The Store contract for stablecoins (`stablecoins`, `putStablecoinProviderAccount`,
 * `putStablecoin`, `putStablecoinOperation`), run against every Store (memory, PGlite in
 * memory, PostgreSQL on a fresh database of the run's throwaway cluster): reads and
 * writes, the unique keys (one link per provider account, one stablecoin per symbol and
 * per network token identifier, per platform) including racing writers, the lists'
 * filters and keyset paging, rollback and resetPlatform.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { Stablecoin, StablecoinOperation, StablecoinProviderAccount } from "../../src/domain/stablecoin.js"
import {
  type StablecoinOperationRecord,
  type StablecoinProviderAccountRecord,
  type StablecoinRecord,
  Store,
  StoreConflict
} from "../../src/ports/store.js"
import { expectConflict, failureOf, KINDS, storeSuite, type StoreService, walk } from "../support/store-harness.js"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const iso = (ms: number) => new Date(ms).toISOString()

const linkRecord = (platformId: string, id: string, providerAccountId: string, o: { status?: StablecoinProviderAccount["status"]; at?: number } = {}): StablecoinProviderAccountRecord => ({
  platformId,
  account: {
    id,
    provider: "BRALE",
    providerAccountId,
    providerEnvironment: "SANDBOX",
    status: o.status ?? "ACTIVE",
    createdAt: iso(o.at ?? T0),
    updatedAt: iso(o.at ?? T0)
  },
  apiClientId: `client-${id}`,
  apiClientSecretSha256: "00"
})

const coinRecord = (platformId: string, id: string, symbol: string, token: string, o: { at?: number; issuance?: Stablecoin["issuanceStatus"]; grid?: Stablecoin["gridOperationsStatus"] } = {}): StablecoinRecord => ({
  platformId,
  stablecoin: {
    id,
    name: `${symbol} Dollar`,
    symbol,
    baseCurrency: "USD",
    network: "SPARK",
    decimals: 6,
    issuanceStatus: o.issuance ?? "PENDING_REVIEW",
    gridOperationsStatus: o.grid ?? "NOT_ENABLED",
    networkTokenIdentifier: token,
    provider: "BRALE",
    stablecoinProviderAccountId: "StablecoinProviderAccount:1",
    providerEnvironment: "SANDBOX",
    providerTokenIdentifier: symbol,
    createdAt: iso(o.at ?? T0),
    updatedAt: iso(o.at ?? T0)
  },
  issuanceOutcome: "PROVISIONED",
  enablementDeclined: false
})

const opRecord = (platformId: string, id: string, stablecoinId: string, type: StablecoinOperation["operationType"], at: number): StablecoinOperationRecord => ({
  platformId,
  operation: {
    id,
    stablecoinId,
    operationType: type,
    status: "PROCESSING",
    amount: "1000000",
    provider: "BRALE",
    providerEnvironment: "SANDBOX",
    stablecoinProviderAccountId: "StablecoinProviderAccount:1",
    createdAt: iso(at),
    updatedAt: iso(at)
  },
  pending: [{ at: at + 1000, event: "SETTLED" }]
})

const sleep = (ms: number) => Effect.sleep(`${ms} millis`)

/** The registration's check-then-write in one unit of work: the lookups, a pause, the write. */
const registerIfFree = (store: StoreService, p: string, r: StablecoinRecord) =>
  store.transact((uow) =>
    Effect.gen(function*() {
      const byToken = yield* store.stablecoins.findByTokenIdentifier(p, "SPARK", r.stablecoin.networkTokenIdentifier)
      const bySymbol = yield* store.stablecoins.findBySymbol(p, r.stablecoin.symbol)
      yield* sleep(1)
      if (byToken !== undefined || bySymbol !== undefined) return "taken" as const
      yield* uow.putStablecoin(r)
      return "written" as const
    })
  ).pipe(Effect.catchTag("StoreConflict", (e) => Effect.succeed(e.constraint)))

describe.each(KINDS)("Stablecoin store contract on %s", (kind) => {
  const { storeIt, runtime, databaseUrl } = storeSuite(kind)

  storeIt("put and get each kind; rewrites in place; lookups by the unique keys", (store, p) =>
    Effect.gen(function*() {
      const link = linkRecord(p, "StablecoinProviderAccount:1", "acct-1")
      const coin = coinRecord(p, "Stablecoin:1", "ACME", "btkn1aaaaaa")
      const op = opRecord(p, "StablecoinOperation:1", "Stablecoin:1", "MINT", T0)
      yield* store.transact((uow) =>
        Effect.all([uow.putStablecoinProviderAccount(link), uow.putStablecoin(coin), uow.putStablecoinOperation(op)], { discard: true }))
      expect(yield* store.stablecoins.getProviderAccount(p, link.account.id)).toEqual(link)
      expect(yield* store.stablecoins.findProviderAccount(p, "BRALE", "acct-1")).toEqual(link)
      expect(yield* store.stablecoins.findProviderAccount(p, "BRALE", "acct-2")).toBeUndefined()
      expect(yield* store.stablecoins.get(p, coin.stablecoin.id)).toEqual(coin)
      expect(yield* store.stablecoins.get(`${p}-other`, coin.stablecoin.id)).toBeUndefined()
      expect(yield* store.stablecoins.findBySymbol(p, "ACME")).toEqual(coin)
      expect(yield* store.stablecoins.findBySymbol(p, "acme")).toBeUndefined()
      expect(yield* store.stablecoins.findByTokenIdentifier(p, "SPARK", "btkn1aaaaaa")).toEqual(coin)
      expect(yield* store.stablecoins.getOperation(p, op.operation.id)).toEqual(op)
      const provisioned: StablecoinRecord = { ...coin, stablecoin: { ...coin.stablecoin, issuanceStatus: "PROVISIONED", symbol: "ACME2" } }
      const settled: StablecoinOperationRecord = { ...op, operation: { ...op.operation, status: "COMPLETED" }, pending: [] }
      yield* store.transact((uow) => Effect.andThen(uow.putStablecoin(provisioned), uow.putStablecoinOperation(settled)))
      expect(yield* store.stablecoins.get(p, coin.stablecoin.id)).toEqual(provisioned)
      expect(yield* store.stablecoins.findBySymbol(p, "ACME")).toBeUndefined()
      expect(yield* store.stablecoins.findBySymbol(p, "ACME2")).toEqual(provisioned)
      expect(yield* store.stablecoins.getOperation(p, op.operation.id)).toEqual(settled)
      expect((yield* store.stablecoins.list(p, { issuanceStatus: "PROVISIONED" }, { limit: 10 })).totalCount).toBe(1)
    }))

  storeIt("unique: a provider account, a symbol, a network token identifier (per platform); a failed unit of work leaves nothing", (store, p) =>
    Effect.gen(function*() {
      yield* store.transact((uow) =>
        Effect.andThen(uow.putStablecoinProviderAccount(linkRecord(p, "StablecoinProviderAccount:1", "acct-1")), uow.putStablecoin(coinRecord(p, "Stablecoin:1", "ACME", "btkn1aaaaaa"))))
      expectConflict(
        yield* Effect.exit(store.transact((uow) => uow.putStablecoinProviderAccount(linkRecord(p, "StablecoinProviderAccount:2", "acct-1")))),
        "stablecoin_provider_accounts_account"
      )
      expectConflict(yield* Effect.exit(store.transact((uow) => uow.putStablecoin(coinRecord(p, "Stablecoin:2", "ACME", "btkn1bbbbbb")))), "stablecoins_symbol")
      expectConflict(
        yield* Effect.exit(store.transact((uow) => uow.putStablecoin(coinRecord(p, "Stablecoin:3", "OTHER", "btkn1aaaaaa")))),
        "stablecoins_token_identifier"
      )
      expect(yield* store.stablecoins.get(p, "Stablecoin:2")).toBeUndefined()
      expect(yield* store.stablecoins.get(p, "Stablecoin:3")).toBeUndefined()
      expect(yield* store.stablecoins.getProviderAccount(p, "StablecoinProviderAccount:2")).toBeUndefined()
      // Other platforms hold their own keys.
      yield* store.transact((uow) =>
        Effect.andThen(uow.putStablecoinProviderAccount(linkRecord(`${p}-b`, "StablecoinProviderAccount:1", "acct-1")), uow.putStablecoin(coinRecord(`${p}-b`, "Stablecoin:2", "ACME", "btkn1aaaaaa"))))
      // A failed unit of work rolls its writes back.
      const failed = yield* Effect.exit(store.transact((uow) =>
        Effect.andThen(uow.putStablecoin(coinRecord(p, "Stablecoin:9", "NINE", "btkn1ccccccc")), Effect.fail("undo" as const))))
      expect(failureOf(failed)).toBe("undo")
      expect(yield* store.stablecoins.findBySymbol(p, "NINE")).toBeUndefined()
    }))

  storeIt("racing registrations of one symbol or one token: exactly one is written", (store, p) =>
    Effect.gen(function*() {
      const symbolRace = yield* Effect.all(
        Array.from({ length: 8 }, (_, i) => registerIfFree(store, p, coinRecord(p, `Stablecoin:s${i}`, "RACE", `btkn1race${"qpzry9x8"[i]}aaaa`))),
        { concurrency: "unbounded" }
      )
      expect(symbolRace.filter((r) => r === "written")).toHaveLength(1)
      expect(symbolRace.every((r) => r === "written" || r === "taken" || r === "stablecoins_symbol")).toBe(true)
      const tokenRace = yield* Effect.all(
        Array.from({ length: 8 }, (_, i) => registerIfFree(store, p, coinRecord(p, `Stablecoin:t${i}`, `TOK${i}`, "btkn1sametoken"))),
        { concurrency: "unbounded" }
      )
      expect(tokenRace.filter((r) => r === "written")).toHaveLength(1)
      expect((yield* store.stablecoins.list(p, {}, { limit: 100 })).totalCount).toBe(2)
      // Writes without the check: the index alone refuses the second.
      const blind = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) =>
          Effect.exit(store.transact((uow) => Effect.andThen(sleep(1), uow.putStablecoin(coinRecord(p, `Stablecoin:b${i}`, "BLIND", `btkn1blind${"qpzry9"[i]}aaa`)))))),
        { concurrency: "unbounded" }
      )
      expect(blind.filter((e) => e._tag === "Success")).toHaveLength(1)
      for (const e of blind) if (e._tag === "Failure") expect(failureOf(e)).toBeInstanceOf(StoreConflict)
    }), 60_000)

  storeIt("lists: filters, keyset pages oldest first (operations newest first when asked), totals", (store, p) =>
    Effect.gen(function*() {
      const links = [
        linkRecord(p, "StablecoinProviderAccount:1", "a1", { at: T0 }),
        linkRecord(p, "StablecoinProviderAccount:2", "a2", { at: T0 + 1, status: "REVOKED" }),
        linkRecord(p, "StablecoinProviderAccount:3", "a3", { at: T0 + 1 })
      ]
      const coins = [
        coinRecord(p, "Stablecoin:1", "A", "btkn1aaaaaaa", { at: T0 }),
        coinRecord(p, "Stablecoin:2", "B", "btkn1bbbbbbb", { at: T0 + 2, issuance: "PROVISIONED", grid: "ENABLED" }),
        coinRecord(p, "Stablecoin:3", "C", "btkn1ccccccc", { at: T0 + 1, issuance: "PROVISIONED" })
      ]
      const ops = [
        opRecord(p, "StablecoinOperation:1", "Stablecoin:2", "MINT", T0),
        opRecord(p, "StablecoinOperation:2", "Stablecoin:2", "BURN", T0 + 1),
        opRecord(p, "StablecoinOperation:3", "Stablecoin:2", "MINT", T0 + 2),
        opRecord(p, "StablecoinOperation:4", "Stablecoin:3", "MINT", T0 + 3)
      ]
      yield* store.transact((uow) =>
        Effect.gen(function*() {
          for (const r of [...links].reverse()) yield* uow.putStablecoinProviderAccount(r)
          for (const r of [...coins].reverse()) yield* uow.putStablecoin(r)
          for (const r of [...ops].reverse()) yield* uow.putStablecoinOperation(r)
        }))
      const linkIds = (yield* walk((page) => store.stablecoins.listProviderAccounts(p, {}, page), 1, 3)).map((r) => r.account.id)
      expect(linkIds).toEqual(["StablecoinProviderAccount:1", "StablecoinProviderAccount:2", "StablecoinProviderAccount:3"])
      expect((yield* walk((page) => store.stablecoins.listProviderAccounts(p, { status: "ACTIVE", provider: "BRALE" }, page), 1, 2)).map((r) => r.account.id))
        .toEqual(["StablecoinProviderAccount:1", "StablecoinProviderAccount:3"])
      expect((yield* walk((page) => store.stablecoins.list(p, {}, page), 2, 3)).map((r) => r.stablecoin.id)).toEqual(["Stablecoin:1", "Stablecoin:3", "Stablecoin:2"])
      expect((yield* walk((page) => store.stablecoins.list(p, { issuanceStatus: "PROVISIONED" }, page), 1, 2)).map((r) => r.stablecoin.id)).toEqual(["Stablecoin:3", "Stablecoin:2"])
      expect((yield* walk((page) => store.stablecoins.list(p, { gridOperationsStatus: "ENABLED", provider: "BRALE" }, page), 1, 1)).map((r) => r.stablecoin.id)).toEqual(["Stablecoin:2"])
      expect((yield* walk((page) => store.stablecoins.listOperations(p, { stablecoinId: "Stablecoin:2" }, { ...page, descending: true }), 2, 3)).map((r) => r.operation.id))
        .toEqual(["StablecoinOperation:3", "StablecoinOperation:2", "StablecoinOperation:1"])
      expect((yield* walk((page) => store.stablecoins.listOperations(p, { stablecoinId: "Stablecoin:2", operationType: "MINT" }, page), 1, 2)).map((r) => r.operation.id))
        .toEqual(["StablecoinOperation:1", "StablecoinOperation:3"])
      expect((yield* store.stablecoins.listOperations(p, { stablecoinId: "Stablecoin:1" }, { limit: 5 })).totalCount).toBe(0)
      const bad = yield* Effect.exit(store.stablecoins.list(p, {}, { limit: 1, cursor: "not-a-cursor" }))
      expect(failureOf(bad)).toMatchObject({ _tag: "InvalidCursor" })
    }))

  storeIt("resetPlatform clears links, stablecoins and operations of that platform only", (store, p) =>
    Effect.gen(function*() {
      for (const q of [p, `${p}-keep`]) {
        yield* store.transact((uow) =>
          Effect.all([
            uow.putStablecoinProviderAccount(linkRecord(q, "StablecoinProviderAccount:1", "acct")),
            uow.putStablecoin(coinRecord(q, "Stablecoin:1", "ACME", "btkn1aaaaaa")),
            uow.putStablecoinOperation(opRecord(q, "StablecoinOperation:1", "Stablecoin:1", "MINT", T0))
          ], { discard: true }))
      }
      yield* store.transact((uow) => uow.resetPlatform(p))
      expect(yield* store.stablecoins.get(p, "Stablecoin:1")).toBeUndefined()
      expect(yield* store.stablecoins.getProviderAccount(p, "StablecoinProviderAccount:1")).toBeUndefined()
      expect(yield* store.stablecoins.getOperation(p, "StablecoinOperation:1")).toBeUndefined()
      expect(yield* store.stablecoins.findBySymbol(p, "ACME")).toBeUndefined()
      expect((yield* store.stablecoins.get(`${p}-keep`, "Stablecoin:1"))?.stablecoin.symbol).toBe("ACME")
      // The keys are free again.
      yield* store.transact((uow) => uow.putStablecoin(coinRecord(p, "Stablecoin:2", "ACME", "btkn1aaaaaa")))
    }))
})
