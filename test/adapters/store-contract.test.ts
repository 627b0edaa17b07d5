/**
 * The Store contract: one suite, run against every Store implementation (memory,
 * PGlite in memory, PostgreSQL on a fresh database of the run's throwaway cluster),
 * so the three behave the same to the operations above them.
 *
 * Every test uses its own platform id, so tests sharing a store never see each
 * other's rows (tenant isolation is itself under test below).
 */
import type { BulkCustomerImportJob } from "../../src/domain/bulk-job.js"
import { execFile, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Cause, Deferred, Effect, Exit, Fiber, ManagedRuntime } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { pgliteStoreLayer, postgresStoreLayer } from "../../src/adapters/sql/index.js"
import type { CustomerResponse } from "../../src/domain/customer.js"
import type { DocumentType } from "../../src/domain/document.js"
import type { VerificationStatus } from "../../src/domain/verification.js"
import type { DomainEvent } from "../../src/ports/events.js"
import {
  type BeneficialOwnerRecord,
  type CustomerQuery,
  type CustomerRecord,
  type DocumentRecord,
  type ExternalAccountQuery,
  type ExternalAccountRecord,
  type IdempotencyRecord,
  InvalidCursor,
  type Page,
  type PageResult,
  Store,
  StoreConflict,
  type TimerRecord,
  type UniqueConstraint,
  type UnitOfWork,
  type VerificationRecord
} from "../../src/ports/store.js"
import { createDatabase } from "../support/postgres.js"
import { bundled } from "../support/bundle.js"
import { withPgliteTemplate } from "../support/pglite-template.js"
import { numRuns } from "../support/runs.js"
import { expectConflict, failureOf, freshPlatform, type Kind, KINDS, layerFor, type StoreService, walk } from "../support/store-harness.js"

// ---------------------------------------------------------------- records

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const iso = (ms: number) => new Date(ms).toISOString()
const SEC = 1000


interface CustomerOptions {
  readonly pcid?: string
  readonly createdAt?: number
  readonly updatedAt?: number
  readonly type?: "INDIVIDUAL" | "BUSINESS"
  readonly region?: string
  readonly currencies?: ReadonlyArray<string>
  readonly uma?: string
  readonly deleted?: boolean
  readonly name?: string
}

const customerRecord = (platformId: string, id: string, o: CustomerOptions = {}): CustomerRecord => {
  const createdAt = o.createdAt ?? T0
  const base = {
    id,
    platformCustomerId: o.pcid ?? `pc-${id}`,
    umaAddress: o.uma ?? `$${id.replace(/[^a-zA-Z0-9]/g, "")}@example.com`,
    agreementConsents: [],
    createdAt: iso(createdAt),
    updatedAt: iso(o.updatedAt ?? createdAt),
    isDeleted: o.deleted === true,
    ...(o.region === undefined ? {} : { region: o.region }),
    ...(o.currencies === undefined ? {} : { currencies: [...o.currencies] })
  }
  const customer: CustomerResponse = o.type === "BUSINESS"
    ? { ...base, customerType: "BUSINESS", kybStatus: "UNVERIFIED", businessInfo: { legalName: o.name ?? "Acme Ltd" } }
    : { ...base, customerType: "INDIVIDUAL", kycStatus: "UNVERIFIED", fullName: o.name ?? "Ada Lovelace" }
  return o.deleted === true ? { platformId, customer, deletedAt: iso(createdAt + SEC) } : { platformId, customer }
}

interface AccountOptions {
  /** `null`: a platform-owned account. */
  readonly customerId?: string | null
  readonly currency?: string
  readonly key?: string
  readonly defaultUma?: boolean
  readonly createdAt?: number
  readonly trusted?: boolean
}

const accountRecord = (platformId: string, id: string, o: AccountOptions = {}): ExternalAccountRecord => ({
  platformId,
  account: {
    id,
    customerId: o.customerId === undefined ? "Customer:owner" : o.customerId,
    status: "ACTIVE",
    currency: o.currency ?? "USDC",
    defaultUmaDepositAccount: o.defaultUma ?? false,
    accountInfo: { accountType: "ETHEREUM_WALLET", address: "0x52908400098527886E0F7030069857D2E4169EE7" },
    createdAt: iso(o.createdAt ?? T0),
    updatedAt: iso(o.createdAt ?? T0)
  },
  equivalenceKey: o.key ?? `eq-${id}`,
  trusted: o.trusted ?? false
})

const documentRecord = (
  platformId: string,
  id: string,
  holder: string,
  documentType: DocumentType = "PASSPORT",
  createdAt = T0
): DocumentRecord => ({
  platformId,
  document: { id, documentHolder: holder, documentType, country: "US", fileName: `${id}.pdf`, createdAt: iso(createdAt) },
  file: { sizeBytes: 1234, sha256: "ab".repeat(32), mediaType: "application/pdf" }
})

const ownerRecord = (platformId: string, id: string, customerId: string, createdAt = T0): BeneficialOwnerRecord => ({
  platformId,
  owner: {
    id,
    customerId,
    roles: ["UBO"],
    ownershipPercentage: 50,
    personalInfo: {
      firstName: "Grace",
      lastName: "Hopper",
      birthDate: "1906-12-09",
      nationality: "US",
      address: { line1: "1 Main St", postalCode: "10001", country: "US" },
      idType: "PASSPORT",
      identifier: "X1234567"
    },
    kycStatus: "UNVERIFIED",
    createdAt: iso(createdAt)
  }
})

const verificationRecord = (
  platformId: string,
  id: string,
  customerId: string,
  verificationStatus: VerificationStatus = "IN_PROGRESS",
  createdAt = T0
): VerificationRecord => ({
  platformId,
  verification: { id, customerId, verificationStatus, errors: [], createdAt: iso(createdAt) }
})

const jobOf = (id: string, details?: Record<string, unknown>): BulkCustomerImportJob => ({
  id,
  status: "COMPLETED",
  progress: { total: 1, processed: 1, successful: 0, failed: 1 },
  ...(details === undefined ? {} : { errors: [{ correlationId: "row_1", code: "INVALID_INPUT", message: "m", details }] })
})

const eventOf = (platformId: string, id: string, data: BulkCustomerImportJob = jobOf(id)): DomainEvent => ({
  id: `Webhook:${id}`,
  platformId,
  type: "BULK_UPLOAD.COMPLETED",
  timestamp: iso(T0),
  data
})

const timerOf = (platformId: string, id: string, at: number, subjectId = "Subject:1", kind = "k1", event = "GO"): TimerRecord => ({
  platformId,
  id,
  at,
  kind,
  subjectId,
  event
})

const idempotencyOf = (platformId: string, key: string, createdAt: number, ttl: number, hash = "h1"): IdempotencyRecord => ({
  platformId,
  key,
  operation: "POST /customers",
  requestHash: hash,
  body: { id: "Customer:1", nested: { list: [1, 2, 3], flag: true } },
  createdAt,
  expiresAt: createdAt + ttl
})

// ---------------------------------------------------------------- helpers


const idsOf = <R>(rows: ReadonlyArray<R>, id: (r: R) => string) => rows.map(id)
const cid = (r: CustomerRecord) => r.customer.id
const aid = (r: ExternalAccountRecord) => r.account.id
const did = (r: DocumentRecord) => r.document.id
const oid = (r: BeneficialOwnerRecord) => r.owner.id
const vid = (r: VerificationRecord) => r.verification.id

/** Keyset order on (createdAt, id), ids by code unit (ASCII ids: the same as the "C" collation). */
const byKey = <R>(createdAt: (r: R) => string, id: (r: R) => string) => (a: R, b: R): number => {
  const d = Date.parse(createdAt(a)) - Date.parse(createdAt(b))
  if (d !== 0) return d
  return id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0
}
const customerOrder = byKey<CustomerRecord>((r) => r.customer.createdAt, cid)
const accountOrder = byKey<ExternalAccountRecord>((r) => r.account.createdAt, aid)
const documentOrder = byKey<DocumentRecord>((r) => r.document.createdAt, did)
const ownerOrder = byKey<BeneficialOwnerRecord>((r) => r.owner.createdAt, oid)
const verificationOrder = byKey<VerificationRecord>((r) => r.verification.createdAt, vid)


const sleep = (ms: number) => Effect.sleep(`${ms} millis`)

/** Everything a platform holds, as seen through every read method. */
const snapshot = (store: StoreService, p: string, ids: {
  readonly customers?: ReadonlyArray<string>
  readonly pcids?: ReadonlyArray<string>
  readonly accounts?: ReadonlyArray<string>
  readonly keys?: ReadonlyArray<string>
  readonly documents?: ReadonlyArray<string>
  readonly holders?: ReadonlyArray<string>
  readonly owners?: ReadonlyArray<string>
  readonly verifications?: ReadonlyArray<string>
  readonly idempotencyKeys?: ReadonlyArray<string>
} = {}) =>
  Effect.gen(function*() {
    const all = { limit: 1000 }
    return {
      customers: yield* Effect.forEach(ids.customers ?? [], (id) => store.customers.get(p, id)),
      active: yield* Effect.forEach(ids.pcids ?? [], (pcid) => store.customers.findActiveByPlatformCustomerId(p, pcid)),
      customerList: idsOf((yield* store.customers.list(p, { includeDeleted: true }, all)).data, cid),
      accounts: yield* Effect.forEach(ids.accounts ?? [], (id) => store.externalAccounts.get(p, id)),
      byKey: yield* Effect.forEach(ids.keys ?? [], (k) => store.externalAccounts.findByEquivalenceKey(p, k)),
      defaultUma: yield* Effect.forEach(ids.customers ?? [], (c) => store.externalAccounts.findDefaultUmaDeposit(p, c)),
      customerAccounts: idsOf((yield* store.externalAccounts.list(p, { owner: "customer" }, all)).data, aid),
      platformAccounts: idsOf((yield* store.externalAccounts.list(p, { owner: "platform" }, all)).data, aid),
      documents: yield* Effect.forEach(ids.documents ?? [], (id) => store.documents.get(p, id)),
      byHolder: yield* Effect.forEach(ids.holders ?? [], (h) => Effect.map(store.documents.listByHolder(p, h), (rs) => idsOf(rs, did))),
      documentList: idsOf((yield* store.documents.list(p, {}, all)).data, did),
      owners: yield* Effect.forEach(ids.owners ?? [], (id) => store.beneficialOwners.get(p, id)),
      ownersByCustomer: yield* Effect.forEach(ids.customers ?? [], (c) => Effect.map(store.beneficialOwners.listByCustomer(p, c), (rs) => idsOf(rs, oid))),
      verifications: yield* Effect.forEach(ids.verifications ?? [], (id) => store.verifications.get(p, id)),
      verificationList: idsOf((yield* store.verifications.list(p, {}, all)).data, vid),
      events: (yield* store.events.list(p)).map((e) => e.event.id),
      timers: (yield* store.timers.pending(p)).map((t) => t.id),
      outcomes: (yield* store.timers.outcomes(p)).map((o) => o.timer.id),
      offset: yield* store.clocks.offset(p),
      idempotency: yield* Effect.forEach(ids.idempotencyKeys ?? [], (k) => store.idempotency.get(p, k, T0))
    }
  })

type Snapshot = Effect.Success<ReturnType<typeof snapshot>>

const emptySnapshot = (s: Snapshot) => {
  expect(s.customers.every((r) => r === undefined)).toBe(true)
  expect(s.active.every((r) => r === undefined)).toBe(true)
  expect(s.customerList).toEqual([])
  expect(s.accounts.every((r) => r === undefined)).toBe(true)
  expect(s.byKey.every((r) => r === undefined)).toBe(true)
  expect(s.defaultUma.every((r) => r === undefined)).toBe(true)
  expect(s.customerAccounts).toEqual([])
  expect(s.platformAccounts).toEqual([])
  expect(s.documents.every((r) => r === undefined)).toBe(true)
  expect(s.byHolder.every((r) => r.length === 0)).toBe(true)
  expect(s.documentList).toEqual([])
  expect(s.owners.every((r) => r === undefined)).toBe(true)
  expect(s.ownersByCustomer.every((r) => r.length === 0)).toBe(true)
  expect(s.verifications.every((r) => r === undefined)).toBe(true)
  expect(s.verificationList).toEqual([])
  expect(s.events).toEqual([])
  expect(s.timers).toEqual([])
  expect(s.outcomes).toEqual([])
  expect(s.offset).toBe(0)
  expect(s.idempotency.every((r) => r === undefined)).toBe(true)
}

/** One of everything under `p`, all ids fixed, so two platforms can hold the very same ids and keys. */
const FULL_IDS = {
  customers: ["Customer:1", "Customer:2"],
  pcids: ["pc-1", "pc-2"],
  accounts: ["ExternalAccount:1", "ExternalAccount:2"],
  keys: ["eq-1", "eq-2"],
  documents: ["Document:1"],
  holders: ["Customer:1"],
  owners: ["BeneficialOwner:1"],
  verifications: ["Verification:1"],
  idempotencyKeys: ["idem-1"]
} as const

const writeEverything = (uow: UnitOfWork, p: string) =>
  Effect.gen(function*() {
    yield* uow.putCustomer(customerRecord(p, "Customer:1", { pcid: "pc-1" }))
    yield* uow.putCustomer(customerRecord(p, "Customer:2", { pcid: "pc-2", type: "BUSINESS", createdAt: T0 + SEC }))
    yield* uow.putExternalAccount(accountRecord(p, "ExternalAccount:1", { customerId: "Customer:1", key: "eq-1", defaultUma: true }))
    yield* uow.putExternalAccount(accountRecord(p, "ExternalAccount:2", { customerId: null, key: "eq-2" }))
    yield* uow.putDocument(documentRecord(p, "Document:1", "Customer:1"))
    yield* uow.putBeneficialOwner(ownerRecord(p, "BeneficialOwner:1", "Customer:2"))
    yield* uow.putVerification(verificationRecord(p, "Verification:1", "Customer:1"))
    yield* uow.emit(eventOf(p, "e1"))
    yield* uow.schedule(timerOf(p, "Timer:1", T0 + SEC, "ExternalAccount:1"))
    yield* uow.recordTimerOutcome({ timer: timerOf(p, "Timer:0", T0, "ExternalAccount:1"), appliedAt: T0, outcome: "applied" })
    yield* uow.setClockOffset(p, 60_000)
    expect(yield* uow.putIdempotency(idempotencyOf(p, "idem-1", T0, 3_600_000))).toBeUndefined()
  })

const expectFull = (s: Snapshot) => {
  expect(s.customers.map((r) => r?.customer.id)).toEqual(FULL_IDS.customers)
  expect(s.active.map((r) => r?.customer.id)).toEqual(FULL_IDS.customers)
  expect(s.customerList).toEqual(FULL_IDS.customers)
  expect(s.accounts.map((r) => r?.account.id)).toEqual(FULL_IDS.accounts)
  expect(s.byKey.map((r) => r?.account.id)).toEqual(FULL_IDS.accounts)
  expect(s.defaultUma.map((r) => r?.account.id)).toEqual(["ExternalAccount:1", undefined])
  expect(s.customerAccounts).toEqual(["ExternalAccount:1"])
  expect(s.platformAccounts).toEqual(["ExternalAccount:2"])
  expect(s.documents.map((r) => r?.document.id)).toEqual(["Document:1"])
  expect(s.byHolder).toEqual([["Document:1"]])
  expect(s.documentList).toEqual(["Document:1"])
  expect(s.owners.map((r) => r?.owner.id)).toEqual(["BeneficialOwner:1"])
  expect(s.ownersByCustomer).toEqual([[], ["BeneficialOwner:1"]])
  expect(s.verifications.map((r) => r?.verification.id)).toEqual(["Verification:1"])
  expect(s.verificationList).toEqual(["Verification:1"])
  expect(s.events).toEqual(["Webhook:e1"])
  expect(s.timers).toEqual(["Timer:1"])
  expect(s.outcomes).toEqual(["Timer:0"])
  expect(s.offset).toBe(60_000)
  expect(s.idempotency.map((r) => r?.key)).toEqual(["idem-1"])
}

// ---------------------------------------------------------------- the stores


describe.each(KINDS)("Store contract on %s", (kind) => {
  let runtime: ManagedRuntime.ManagedRuntime<Store, unknown>
  let databaseUrl: string | undefined

  beforeAll(async () => {
    if (kind === "postgres") databaseUrl = await createDatabase(inject("databaseAdminUrl"))
    runtime = ManagedRuntime.make(layerFor(kind, databaseUrl))
    const info = await runtime.runPromise(Effect.map(Effect.service(Store), (s) => s.info))
    expect(info.kind).toBe(kind)
  }, 60_000)
  afterAll(async () => {
    await runtime?.dispose()
  })

  /** A test body run with the store and a platform of its own. */
  const storeIt = (
    name: string,
    body: (store: StoreService, p: string) => Effect.Effect<void, unknown>,
    timeout?: number
  ) =>
    it(name, () =>
      runtime.runPromise(Effect.gen(function*() {
        const store = yield* Store
        yield* body(store, freshPlatform(kind))
      })), timeout)

  // ------------------------------------------------------------ repositories

  describe("customers", () => {
    storeIt("get / findActiveByPlatformCustomerId / list, with updates and deletion", (store, p) =>
      Effect.gen(function*() {
        const a = customerRecord(p, "Customer:a", { pcid: "pa", region: "US", currencies: ["USD", "EUR"] })
        const b = customerRecord(p, "Customer:b", { pcid: "pb", type: "BUSINESS", createdAt: T0 + SEC })
        yield* store.transact((uow) => Effect.andThen(uow.putCustomer(a), uow.putCustomer(b)))
        expect(yield* store.customers.get(p, "Customer:a")).toEqual(a)
        expect(yield* store.customers.get(p, "Customer:b")).toEqual(b)
        expect(yield* store.customers.get(p, "Customer:nope")).toBeUndefined()
        expect(yield* store.customers.findActiveByPlatformCustomerId(p, "pa")).toEqual(a)
        expect(yield* store.customers.findActiveByPlatformCustomerId(p, "pb")).toEqual(b)
        expect(yield* store.customers.findActiveByPlatformCustomerId(p, "nope")).toBeUndefined()
        const listed = yield* store.customers.list(p, {}, { limit: 10 })
        expect(listed).toEqual({ data: [a, b], hasMore: false, totalCount: 2 })

        // An update replaces the record (same id: not a conflict with itself).
        const a2 = customerRecord(p, "Customer:a", { pcid: "pa", name: "Ada Byron", updatedAt: T0 + 5 * SEC })
        yield* store.transact((uow) => uow.putCustomer(a2))
        expect(yield* store.customers.get(p, "Customer:a")).toEqual(a2)
        expect((yield* store.customers.list(p, {}, { limit: 10 })).data).toEqual([a2, b])

        // A changed platformCustomerId moves the index entry.
        const a3 = customerRecord(p, "Customer:a", { pcid: "pa-new" })
        yield* store.transact((uow) => uow.putCustomer(a3))
        expect(yield* store.customers.findActiveByPlatformCustomerId(p, "pa")).toBeUndefined()
        expect(yield* store.customers.findActiveByPlatformCustomerId(p, "pa-new")).toEqual(a3)

        // Deletion: kept by id, gone from the active index and from default lists.
        const deleted = customerRecord(p, "Customer:a", { pcid: "pa-new", deleted: true })
        yield* store.transact((uow) => uow.putCustomer(deleted))
        expect(yield* store.customers.get(p, "Customer:a")).toEqual(deleted)
        expect(yield* store.customers.findActiveByPlatformCustomerId(p, "pa-new")).toBeUndefined()
        expect(yield* store.customers.list(p, {}, { limit: 10 })).toEqual({ data: [b], hasMore: false, totalCount: 1 })
        expect(yield* store.customers.list(p, { includeDeleted: true }, { limit: 10 })).toEqual({
          data: [deleted, b],
          hasMore: false,
          totalCount: 2
        })
      }))
  })

  describe("external accounts", () => {
    storeIt("get / findByEquivalenceKey / findDefaultUmaDeposit / list / delete", (store, p) =>
      Effect.gen(function*() {
        const uma = accountRecord(p, "ExternalAccount:1", { customerId: "Customer:1", key: "k1", defaultUma: true, currency: "USD" })
        const other = accountRecord(p, "ExternalAccount:2", { customerId: "Customer:1", key: "k2", createdAt: T0 + SEC })
        const platformOwned = accountRecord(p, "ExternalAccount:3", { customerId: null, key: "k3", defaultUma: true, createdAt: T0 + 2 * SEC })
        const c2 = accountRecord(p, "ExternalAccount:4", { customerId: "Customer:2", key: "k4", currency: "USD", createdAt: T0 + 3 * SEC })
        yield* store.transact((uow) => Effect.forEach([uma, other, platformOwned, c2], uow.putExternalAccount, { discard: true }))

        expect(yield* store.externalAccounts.get(p, "ExternalAccount:1")).toEqual(uma)
        expect(yield* store.externalAccounts.get(p, "ExternalAccount:9")).toBeUndefined()
        expect(yield* store.externalAccounts.findByEquivalenceKey(p, "k2")).toEqual(other)
        expect(yield* store.externalAccounts.findByEquivalenceKey(p, "k9")).toBeUndefined()
        expect(yield* store.externalAccounts.findDefaultUmaDeposit(p, "Customer:1")).toEqual(uma)
        expect(yield* store.externalAccounts.findDefaultUmaDeposit(p, "Customer:2")).toBeUndefined()

        const list = (q: ExternalAccountQuery) => Effect.map(store.externalAccounts.list(p, q, { limit: 10 }), (r) => [idsOf(r.data, aid), r.totalCount])
        expect(yield* list({ owner: "customer" })).toEqual([["ExternalAccount:1", "ExternalAccount:2", "ExternalAccount:4"], 3])
        expect(yield* list({ owner: "platform" })).toEqual([["ExternalAccount:3"], 1])
        expect(yield* list({ owner: "customer", customerId: "Customer:1" })).toEqual([["ExternalAccount:1", "ExternalAccount:2"], 2])
        expect(yield* list({ owner: "customer", currency: "USD" })).toEqual([["ExternalAccount:1", "ExternalAccount:4"], 2])
        expect(yield* list({ owner: "customer", customerId: "Customer:2", currency: "USDC" })).toEqual([[], 0])
        expect(yield* list({ owner: "platform", currency: "USD" })).toEqual([[], 0])

        // Clearing the default flag frees the slot; deletion frees the key.
        const unflagged = accountRecord(p, "ExternalAccount:1", { customerId: "Customer:1", key: "k1", defaultUma: false, currency: "USD" })
        yield* store.transact((uow) => uow.putExternalAccount(unflagged))
        expect(yield* store.externalAccounts.findDefaultUmaDeposit(p, "Customer:1")).toBeUndefined()
        yield* store.transact((uow) => uow.deleteExternalAccount(p, "ExternalAccount:2"))
        expect(yield* store.externalAccounts.get(p, "ExternalAccount:2")).toBeUndefined()
        expect(yield* store.externalAccounts.findByEquivalenceKey(p, "k2")).toBeUndefined()
        expect(yield* list({ owner: "customer", customerId: "Customer:1" })).toEqual([["ExternalAccount:1"], 1])
        // Deleting what is not there is a no-op.
        yield* store.transact((uow) => uow.deleteExternalAccount(p, "ExternalAccount:2"))

        // The record round-trips whole, optional state included.
        const rich: ExternalAccountRecord = {
          ...accountRecord(p, "ExternalAccount:5", { key: "k5" }),
          bankValidationFailed: true,
          ownershipChallenge: { method: "WALLET_SIGNATURE", messageToSign: "sign me", expiresAt: T0 + 600_000 },
          pendingTrustChange: { trusted: true, challengeId: "Challenge:1", expiresAt: T0 + 60_000 },
          trusted: true
        }
        yield* store.transact((uow) => uow.putExternalAccount(rich))
        expect(yield* store.externalAccounts.get(p, "ExternalAccount:5")).toEqual(rich)
      }))
  })

  describe("documents", () => {
    storeIt("get / listByHolder (oldest first) / list / replace / delete", (store, p) =>
      Effect.gen(function*() {
        // Written out of order; equal createdAt is ordered by id.
        const d3 = documentRecord(p, "Document:3", "Customer:1", "PROOF_OF_ADDRESS", T0 + SEC)
        const d2 = documentRecord(p, "Document:2", "Customer:1", "NATIONAL_ID", T0)
        const d1 = documentRecord(p, "Document:1", "Customer:1", "PASSPORT", T0)
        const other = documentRecord(p, "Document:4", "BeneficialOwner:1", "PASSPORT", T0)
        yield* store.transact((uow) => Effect.forEach([d3, d2, d1, other], uow.putDocument, { discard: true }))
        expect(yield* store.documents.get(p, "Document:2")).toEqual(d2)
        expect(yield* store.documents.get(p, "Document:9")).toBeUndefined()
        expect(idsOf(yield* store.documents.listByHolder(p, "Customer:1"), did)).toEqual(["Document:1", "Document:2", "Document:3"])
        expect(yield* store.documents.listByHolder(p, "BeneficialOwner:1")).toEqual([other])
        expect(yield* store.documents.listByHolder(p, "Customer:none")).toEqual([])
        const all = yield* store.documents.list(p, {}, { limit: 10 })
        expect([idsOf(all.data, did), all.totalCount]).toEqual([["Document:1", "Document:2", "Document:4", "Document:3"], 4])
        const mine = yield* store.documents.list(p, { documentHolder: "Customer:1" }, { limit: 2 })
        expect([idsOf(mine.data, did), mine.totalCount, mine.hasMore]).toEqual([["Document:1", "Document:2"], 3, true])

        // A replacement (same id) keeps its place; flags round-trip.
        const replaced: DocumentRecord = { ...d2, poorQuality: true, locked: true, file: { ...d2.file, sizeBytes: 99 } }
        yield* store.transact((uow) => uow.putDocument(replaced))
        expect(yield* store.documents.get(p, "Document:2")).toEqual(replaced)
        yield* store.transact((uow) => uow.deleteDocument(p, "Document:1"))
        expect(yield* store.documents.get(p, "Document:1")).toBeUndefined()
        expect(idsOf(yield* store.documents.listByHolder(p, "Customer:1"), did)).toEqual(["Document:2", "Document:3"])
      }))
  })

  describe("beneficial owners", () => {
    storeIt("get / listByCustomer (oldest first) / list / delete", (store, p) =>
      Effect.gen(function*() {
        const o2 = ownerRecord(p, "BeneficialOwner:2", "Customer:1", T0 + SEC)
        const o1 = ownerRecord(p, "BeneficialOwner:1", "Customer:1", T0 + SEC)
        const o0 = ownerRecord(p, "BeneficialOwner:0", "Customer:1", T0 + 2 * SEC)
        const x = ownerRecord(p, "BeneficialOwner:9", "Customer:2", T0)
        yield* store.transact((uow) => Effect.forEach([o2, o1, o0, x], uow.putBeneficialOwner, { discard: true }))
        expect(yield* store.beneficialOwners.get(p, "BeneficialOwner:1")).toEqual(o1)
        expect(yield* store.beneficialOwners.get(p, "BeneficialOwner:5")).toBeUndefined()
        expect(idsOf(yield* store.beneficialOwners.listByCustomer(p, "Customer:1"), oid)).toEqual([
          "BeneficialOwner:1",
          "BeneficialOwner:2",
          "BeneficialOwner:0"
        ])
        const page = yield* store.beneficialOwners.list(p, { customerId: "Customer:1" }, { limit: 10 })
        expect([idsOf(page.data, oid), page.totalCount]).toEqual([["BeneficialOwner:1", "BeneficialOwner:2", "BeneficialOwner:0"], 3])
        expect((yield* store.beneficialOwners.list(p, { customerId: "Customer:3" }, { limit: 10 })).totalCount).toBe(0)
        const updated: BeneficialOwnerRecord = { ...o1, owner: { ...o1.owner, ownershipPercentage: 75, kycStatus: "APPROVED" } }
        yield* store.transact((uow) => uow.putBeneficialOwner(updated))
        expect(yield* store.beneficialOwners.get(p, "BeneficialOwner:1")).toEqual(updated)
        yield* store.transact((uow) => uow.deleteBeneficialOwner(p, "BeneficialOwner:2"))
        expect(yield* store.beneficialOwners.get(p, "BeneficialOwner:2")).toBeUndefined()
        expect(idsOf(yield* store.beneficialOwners.listByCustomer(p, "Customer:1"), oid)).toEqual(["BeneficialOwner:1", "BeneficialOwner:0"])
      }))
  })

  describe("verifications", () => {
    storeIt("get / list by customer and status / status updates", (store, p) =>
      Effect.gen(function*() {
        const v1 = verificationRecord(p, "Verification:1", "Customer:1", "RESOLVE_ERRORS", T0)
        const v2 = verificationRecord(p, "Verification:2", "Customer:1", "IN_PROGRESS", T0 + SEC)
        const v3 = verificationRecord(p, "Verification:3", "Customer:2", "IN_PROGRESS", T0 + 2 * SEC)
        yield* store.transact((uow) => Effect.forEach([v3, v1, v2], uow.putVerification, { discard: true }))
        expect(yield* store.verifications.get(p, "Verification:2")).toEqual(v2)
        expect(yield* store.verifications.get(p, "Verification:4")).toBeUndefined()
        const list = (q: Parameters<StoreService["verifications"]["list"]>[1]) =>
          Effect.map(store.verifications.list(p, q, { limit: 10 }), (r) => [idsOf(r.data, vid), r.totalCount])
        expect(yield* list({})).toEqual([["Verification:1", "Verification:2", "Verification:3"], 3])
        expect(yield* list({ customerId: "Customer:1" })).toEqual([["Verification:1", "Verification:2"], 2])
        expect(yield* list({ verificationStatus: "IN_PROGRESS" })).toEqual([["Verification:2", "Verification:3"], 2])
        expect(yield* list({ customerId: "Customer:2", verificationStatus: "RESOLVE_ERRORS" })).toEqual([[], 0])
        const approved: VerificationRecord = {
          ...v1,
          verification: { ...v1.verification, verificationStatus: "APPROVED", updatedAt: iso(T0 + 9 * SEC) }
        }
        yield* store.transact((uow) => uow.putVerification(approved))
        expect(yield* store.verifications.get(p, "Verification:1")).toEqual(approved)
        expect(yield* list({ verificationStatus: "RESOLVE_ERRORS" })).toEqual([[], 0])
        expect(yield* list({ verificationStatus: "APPROVED" })).toEqual([["Verification:1"], 1])
      }))
  })

  describe("events", () => {
    storeIt("list in commit order with afterSeq (exclusive) and limit", (store, p) =>
      Effect.gen(function*() {
        const data = jobOf("1", { nested: { n: 1, s: "x", list: [null, true] } })
        yield* store.transact((uow) => Effect.andThen(uow.emit(eventOf(p, "1", data)), uow.emit(eventOf(p, "2"))))
        yield* store.transact((uow) => uow.emit(eventOf(p, "3")))
        yield* store.transact((uow) => Effect.andThen(uow.emit(eventOf(p, "4")), uow.emit(eventOf(p, "5"))))
        const all = yield* store.events.list(p)
        expect(all.map((e) => e.event.id)).toEqual(["Webhook:1", "Webhook:2", "Webhook:3", "Webhook:4", "Webhook:5"])
        expect(all[0]?.event).toEqual(eventOf(p, "1", data))
        const seqs = all.map((e) => e.seq)
        for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]!)
        expect(seqs.every((s) => Number.isSafeInteger(s) && s > 0)).toBe(true)

        const after = (afterSeq: number, limit?: number) =>
          Effect.map(store.events.list(p, limit === undefined ? { afterSeq } : { afterSeq, limit }), (es) => es.map((e) => e.event.id))
        expect(yield* after(seqs[1]!)).toEqual(["Webhook:3", "Webhook:4", "Webhook:5"])
        expect(yield* after(seqs[1]!, 2)).toEqual(["Webhook:3", "Webhook:4"])
        expect(yield* after(seqs[4]!)).toEqual([])
        expect(yield* after(0, 1)).toEqual(["Webhook:1"])
        expect((yield* store.events.list(p, { limit: 3 })).map((e) => e.event.id)).toEqual(["Webhook:1", "Webhook:2", "Webhook:3"])

        // A later commit, even of another platform, gets a higher seq.
        const q = `${p}-other`
        yield* store.transact((uow) => Effect.andThen(uow.emit(eventOf(q, "q1")), uow.emit(eventOf(p, "6"))))
        const sixth = (yield* store.events.list(p, { afterSeq: seqs[4]! }))
        expect(sixth.map((e) => e.event.id)).toEqual(["Webhook:6"])
        const otherSeq = (yield* store.events.list(q))[0]?.seq ?? 0
        expect(otherSeq).toBeGreaterThan(seqs[4]!)
      }))

    storeIt("a unit of work's events keep their emit order (seq order), across nested units of work and platforms; a failed nested one's are dropped", (store, p) =>
      Effect.gen(function*() {
        const q = `${p}-other`
        yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.emit(eventOf(p, "a"))
            yield* store.transact((inner) => Effect.andThen(inner.emit(eventOf(p, "b")), inner.emit(eventOf(q, "q"))))
            yield* uow.emit(eventOf(p, "c"))
            const failed = yield* Effect.exit(store.transact((inner) => Effect.andThen(inner.emit(eventOf(p, "dropped")), Effect.fail("inner failed" as const))))
            expect(failureOf(failed)).toBe("inner failed")
            yield* uow.emit(eventOf(p, "d"))
            yield* store.transact((inner) => inner.emit(eventOf(p, "e")))
          })
        )
        const all = yield* store.events.list(p)
        expect(all.map((e) => e.event.id)).toEqual(["Webhook:a", "Webhook:b", "Webhook:c", "Webhook:d", "Webhook:e"])
        expect(all.map((e) => e.seq)).toEqual([...all.map((e) => e.seq)].sort((x, y) => x - y))
        expect((yield* store.events.list(q)).map((e) => e.event.id)).toEqual(["Webhook:q"])
      }))

    storeIt("events written together come back whole, whatever their text holds (control characters, separators, quotes, any script)", (store, p) =>
      Effect.gen(function*() {
        // The SQL store sends a unit of work's documents as one text split at U+0001 (./events.ts).
        const texts = ["a\u0001b", "\u0001", "line\nbreak\ttab\u001f\u007f", "\"quoted\" \\ back", "ünïcødé ~ 払い 💸", "", "{\"not\":\"json\"}"]
        const events = texts.map((text, i) => eventOf(p, `t${i}`, jobOf(`t${i}`, { text, also: [text, i] })))
        yield* store.transact((uow) => Effect.forEach(events, (e) => uow.emit(e), { discard: true }))
        expect((yield* store.events.list(p)).map((e) => e.event)).toEqual(events)
      }))

    storeIt("a reader following afterSeq never misses an event committed after its read", (store, p) =>
      Effect.gen(function*() {
        // Unit of work 1 emits first and commits last; unit of work 2 emits second and commits first.
        const emitted = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const first = yield* Effect.forkChild(store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.emit(eventOf(p, "slow"))
            yield* Deferred.succeed(emitted, undefined)
            yield* Deferred.await(gate)
          })
        ))
        yield* Deferred.await(emitted)
        const second = yield* Effect.forkChild(store.transact((uow) => uow.emit(eventOf(p, "fast"))))
        yield* sleep(150)
        // The reader polls (a store may make it wait for the open unit of work), remembers the
        // last seq it saw, then polls again after both committed.
        const reader = yield* Effect.forkChild(store.events.list(p))
        yield* sleep(100)
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(first)
        yield* Fiber.join(second)
        const firstRead = yield* Fiber.join(reader)
        const cursor = firstRead.reduce((m, e) => Math.max(m, e.seq), 0)
        const secondRead = yield* store.events.list(p, { afterSeq: cursor })
        const seen = [...firstRead, ...secondRead].map((e) => e.event.id).sort()
        expect(seen).toEqual(["Webhook:fast", "Webhook:slow"])
      }))
  })

  describe("timers", () => {
    storeIt("schedule replaces the subject's timer of the same kind; pending is (at, id) ordered", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.schedule(timerOf(p, "Timer:1", T0 + 100, "S1", "k1"))
            yield* uow.schedule(timerOf(p, "Timer:2", T0 + 50, "S1", "k2"))
            yield* uow.schedule(timerOf(p, "Timer:3b", T0 + 50, "S2", "k1"))
            yield* uow.schedule(timerOf(p, "Timer:3a", T0 + 50, "S3", "k1"))
          })
        )
        const pending = () => Effect.map(store.timers.pending(p), (ts) => ts.map((t) => t.id))
        expect(yield* pending()).toEqual(["Timer:2", "Timer:3a", "Timer:3b", "Timer:1"])
        expect((yield* store.timers.pending(p))[3]).toEqual(timerOf(p, "Timer:1", T0 + 100, "S1", "k1"))
        // Same subject and kind: replaced; another kind of the same subject stays.
        yield* store.transact((uow) => uow.schedule(timerOf(p, "Timer:4", T0 + 10, "S1", "k1", "OTHER")))
        expect(yield* pending()).toEqual(["Timer:4", "Timer:2", "Timer:3a", "Timer:3b"])
        expect((yield* store.timers.pending(p))[0]?.event).toBe("OTHER")
      }))

    storeIt("cancelTimers by kind and all kinds of a subject", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.schedule(timerOf(p, "Timer:1", T0 + 1, "S1", "k1"))
            yield* uow.schedule(timerOf(p, "Timer:2", T0 + 2, "S1", "k2"))
            yield* uow.schedule(timerOf(p, "Timer:3", T0 + 3, "S1", "k3"))
            yield* uow.schedule(timerOf(p, "Timer:4", T0 + 4, "S2", "k1"))
          })
        )
        const pending = () => Effect.map(store.timers.pending(p), (ts) => ts.map((t) => t.id))
        yield* store.transact((uow) => uow.cancelTimers(p, "S1", "k2"))
        expect(yield* pending()).toEqual(["Timer:1", "Timer:3", "Timer:4"])
        yield* store.transact((uow) => uow.cancelTimers(p, "S1"))
        expect(yield* pending()).toEqual(["Timer:4"])
        yield* store.transact((uow) => uow.cancelTimers(p, "S-none"))
        yield* store.transact((uow) => uow.cancelTimers(p, "S2", "k9"))
        expect(yield* pending()).toEqual(["Timer:4"])
      }))

    storeIt("claimDue: only due ones, earliest (at, id) first, gone on commit, back on rollback", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.schedule(timerOf(p, "Timer:late", T0 + 500, "S1"))
            yield* uow.schedule(timerOf(p, "Timer:b", T0 + 100, "S2"))
            yield* uow.schedule(timerOf(p, "Timer:a", T0 + 100, "S3"))
            yield* uow.schedule(timerOf(p, "Timer:early", T0 + 50, "S4"))
          })
        )
        const claim = (now: number) => store.transact(() => Effect.map(store.timers.claimDue(p, now), (t) => t?.id))
        expect(yield* claim(T0 + 49)).toBeUndefined()
        expect(yield* claim(T0 + 50)).toBe("Timer:early") // due at `now` is due
        // A claim rolled back leaves the timer pending.
        const rolledBack = yield* Effect.exit(store.transact(() =>
          Effect.andThen(store.timers.claimDue(p, T0 + 1000), Effect.fail("no" as const))
        ))
        expect(failureOf(rolledBack)).toBe("no")
        expect((yield* store.timers.pending(p)).map((t) => t.id)).toEqual(["Timer:a", "Timer:b", "Timer:late"])
        // Two claims in one unit of work get two different timers, in order.
        const both = yield* store.transact(() =>
          Effect.all([store.timers.claimDue(p, T0 + 100), store.timers.claimDue(p, T0 + 100), store.timers.claimDue(p, T0 + 100)])
        )
        expect(both.map((t) => t?.id)).toEqual(["Timer:a", "Timer:b", undefined])
        expect(both[0]).toEqual(timerOf(p, "Timer:a", T0 + 100, "S3"))
        expect((yield* store.timers.pending(p)).map((t) => t.id)).toEqual(["Timer:late"])
        expect(yield* claim(T0 + 10_000)).toBe("Timer:late")
        expect(yield* claim(T0 + 10_000)).toBeUndefined()
      }))

    storeIt("claimDue refuses to run outside a unit of work and claims nothing", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) => uow.schedule(timerOf(p, "Timer:1", T0)))
        const exit = yield* Effect.exit(store.timers.claimDue(p, T0 + 1))
        expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
        expect((yield* store.timers.pending(p)).map((t) => t.id)).toEqual(["Timer:1"])
      }))

    storeIt("recordTimerOutcome: outcomes newest last, bounded to the last 1000", (store, p) =>
      Effect.gen(function*() {
        const outcome = (i: number, kind: "applied" | "refused" = "applied") => ({
          timer: timerOf(p, `Timer:${i}`, T0 + i),
          appliedAt: T0 + i + 1,
          outcome: kind,
          ...(kind === "refused" ? { reason: `refused ${i}` } : {})
        })
        yield* store.transact((uow) => Effect.andThen(uow.recordTimerOutcome(outcome(1)), uow.recordTimerOutcome(outcome(2, "refused"))))
        expect(yield* store.timers.outcomes(p)).toEqual([outcome(1), outcome(2, "refused")])
        yield* store.transact((uow) =>
          Effect.forEach(Array.from({ length: 1001 }, (_, i) => i + 3), (i) => uow.recordTimerOutcome(outcome(i)), { discard: true })
        )
        const kept = yield* store.timers.outcomes(p)
        expect(kept.length).toBe(1000)
        expect(kept[0]?.timer.id).toBe("Timer:4")
        expect(kept[999]?.timer.id).toBe("Timer:1003")
      }), 30_000)
  })

  describe("clocks and idempotency", () => {
    storeIt("clock offset: 0 until set, then the last value set", (store, p) =>
      Effect.gen(function*() {
        expect(yield* store.clocks.offset(p)).toBe(0)
        yield* store.transact((uow) => uow.setClockOffset(p, 86_400_000))
        expect(yield* store.clocks.offset(p)).toBe(86_400_000)
        yield* store.transact((uow) => Effect.andThen(uow.setClockOffset(p, 5), uow.setClockOffset(p, 1_000_000_000_000)))
        expect(yield* store.clocks.offset(p)).toBe(1_000_000_000_000)
        yield* store.transact((uow) => uow.setClockOffset(p, -3000))
        expect(yield* store.clocks.offset(p)).toBe(-3000)
        expect(yield* store.clocks.offset(`${p}-other`)).toBe(0)
      }))

    storeIt("idempotency: a live record wins and is returned, an expired one is replaced", (store, p) =>
      Effect.gen(function*() {
        const first = idempotencyOf(p, "key-1", T0, 1000, "h1")
        expect(yield* store.transact((uow) => uow.putIdempotency(first))).toBeUndefined()
        expect(yield* store.idempotency.get(p, "key-1", T0)).toEqual(first)
        expect(yield* store.idempotency.get(p, "key-1", T0 + 999)).toEqual(first)
        expect(yield* store.idempotency.get(p, "key-1", T0 + 1000)).toBeUndefined() // expired at expiresAt
        expect(yield* store.idempotency.get(p, "key-2", T0)).toBeUndefined()

        // While live, a second put returns the first and stores nothing.
        const second = idempotencyOf(p, "key-1", T0 + 500, 1000, "h2")
        expect(yield* store.transact((uow) => uow.putIdempotency(second))).toEqual(first)
        expect(yield* store.idempotency.get(p, "key-1", T0 + 600)).toEqual(first)

        // Once expired, a put replaces it.
        const third = { ...idempotencyOf(p, "key-1", T0 + 1000, 5000, "h3"), body: ["x"] }
        expect(yield* store.transact((uow) => uow.putIdempotency(third))).toBeUndefined()
        expect(yield* store.idempotency.get(p, "key-1", T0 + 1001)).toEqual(third)
        // Another key is independent.
        const other = idempotencyOf(p, "key-2", T0 + 500, 1000, "h4")
        expect(yield* store.transact((uow) => uow.putIdempotency(other))).toBeUndefined()
        expect(yield* store.idempotency.get(p, "key-2", T0 + 500)).toEqual(other)
      }))
  })

  describe("resetPlatform", () => {
    storeIt("removes every record, event, timer, outcome, clock and key of that platform only", (store, p) =>
      Effect.gen(function*() {
        const q = `${p}-kept`
        yield* store.transact((uow) => Effect.andThen(writeEverything(uow, p), writeEverything(uow, q)))
        expectFull(yield* snapshot(store, p, FULL_IDS))
        // A reset that rolls back resets nothing.
        const failed = yield* Effect.exit(store.transact((uow) => Effect.andThen(uow.resetPlatform(p), Effect.fail("undo" as const))))
        expect(failureOf(failed)).toBe("undo")
        expectFull(yield* snapshot(store, p, FULL_IDS))

        yield* store.transact((uow) => uow.resetPlatform(p))
        emptySnapshot(yield* snapshot(store, p, FULL_IDS))
        expectFull(yield* snapshot(store, q, FULL_IDS))
        // Its keys are free again.
        yield* store.transact((uow) => writeEverything(uow, p))
        expectFull(yield* snapshot(store, p, FULL_IDS))
        // Resetting a platform that holds nothing is fine.
        yield* store.transact((uow) => uow.resetPlatform(`${p}-never`))
      }))
  })

  // ------------------------------------------------------------ units of work

  describe("unit of work", () => {
    storeIt("reads its own writes, index lookups included, before it commits", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) =>
          Effect.gen(function*() {
            const c = customerRecord(p, "Customer:1", { pcid: "pc-1" })
            yield* uow.putCustomer(c)
            expect(yield* store.customers.get(p, "Customer:1")).toEqual(c)
            expect(yield* store.customers.findActiveByPlatformCustomerId(p, "pc-1")).toEqual(c)
            expect(yield* store.customers.list(p, {}, { limit: 5 })).toEqual({ data: [c], hasMore: false, totalCount: 1 })
            const gone = customerRecord(p, "Customer:1", { pcid: "pc-1", deleted: true })
            yield* uow.putCustomer(gone)
            expect(yield* store.customers.findActiveByPlatformCustomerId(p, "pc-1")).toBeUndefined()
            expect((yield* store.customers.list(p, {}, { limit: 5 })).totalCount).toBe(0)
            expect((yield* store.customers.list(p, { includeDeleted: true }, { limit: 5 })).data).toEqual([gone])

            const a = accountRecord(p, "ExternalAccount:1", { customerId: "Customer:1", key: "eq", defaultUma: true })
            yield* uow.putExternalAccount(a)
            expect(yield* store.externalAccounts.get(p, "ExternalAccount:1")).toEqual(a)
            expect(yield* store.externalAccounts.findByEquivalenceKey(p, "eq")).toEqual(a)
            expect(yield* store.externalAccounts.findDefaultUmaDeposit(p, "Customer:1")).toEqual(a)
            expect((yield* store.externalAccounts.list(p, { owner: "customer", customerId: "Customer:1" }, { limit: 5 })).data).toEqual([a])
            yield* uow.deleteExternalAccount(p, "ExternalAccount:1")
            expect(yield* store.externalAccounts.findByEquivalenceKey(p, "eq")).toBeUndefined()
            expect(yield* store.externalAccounts.findDefaultUmaDeposit(p, "Customer:1")).toBeUndefined()

            const d = documentRecord(p, "Document:1", "Customer:1")
            yield* uow.putDocument(d)
            expect(yield* store.documents.listByHolder(p, "Customer:1")).toEqual([d])
            expect((yield* store.documents.list(p, { documentHolder: "Customer:1" }, { limit: 5 })).data).toEqual([d])
            const o = ownerRecord(p, "BeneficialOwner:1", "Customer:1")
            yield* uow.putBeneficialOwner(o)
            expect(yield* store.beneficialOwners.listByCustomer(p, "Customer:1")).toEqual([o])
            const v = verificationRecord(p, "Verification:1", "Customer:1", "APPROVED")
            yield* uow.putVerification(v)
            expect((yield* store.verifications.list(p, { verificationStatus: "APPROVED" }, { limit: 5 })).data).toEqual([v])

            yield* uow.emit(eventOf(p, "own"))
            expect((yield* store.events.list(p)).map((e) => e.event.id)).toEqual(["Webhook:own"])
            yield* uow.schedule(timerOf(p, "Timer:1", T0))
            expect((yield* store.timers.pending(p)).map((t) => t.id)).toEqual(["Timer:1"])
            yield* uow.setClockOffset(p, 42)
            expect(yield* store.clocks.offset(p)).toBe(42)
            const idem = idempotencyOf(p, "k", T0, 1000)
            expect(yield* uow.putIdempotency(idem)).toBeUndefined()
            expect(yield* store.idempotency.get(p, "k", T0)).toEqual(idem)
            expect(yield* uow.putIdempotency(idempotencyOf(p, "k", T0 + 1, 1000, "other"))).toEqual(idem)
          })
        )
        // And all of it committed.
        expect((yield* store.customers.get(p, "Customer:1"))?.deletedAt).toBeDefined()
        expect(yield* store.externalAccounts.get(p, "ExternalAccount:1")).toBeUndefined()
        expect((yield* store.documents.listByHolder(p, "Customer:1")).length).toBe(1)
        expect((yield* store.events.list(p)).length).toBe(1)
        expect(yield* store.clocks.offset(p)).toBe(42)
      }))

    storeIt("its writes are invisible outside until it commits, and never half visible", (store, p) =>
      Effect.gen(function*() {
        const c = customerRecord(p, "Customer:1", { pcid: "pc-1" })
        const a = accountRecord(p, "ExternalAccount:1", { customerId: "Customer:1", key: "eq" })
        const started = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const writer = yield* Effect.forkChild(store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.putCustomer(c)
            yield* uow.emit(eventOf(p, "1"))
            yield* Deferred.succeed(started, undefined)
            yield* Deferred.await(gate)
            yield* uow.putExternalAccount(a)
            yield* uow.setClockOffset(p, 7)
          })
        ))
        yield* Deferred.await(started)
        // Readers outside: a plain read, and a unit of work reading several things.
        const plain = yield* Effect.forkChild(store.customers.get(p, "Customer:1"))
        const consistent = yield* Effect.forkChild(store.transact(() =>
          Effect.all({
            customer: store.customers.get(p, "Customer:1"),
            byPcid: store.customers.findActiveByPlatformCustomerId(p, "pc-1"),
            account: store.externalAccounts.get(p, "ExternalAccount:1"),
            events: Effect.map(store.events.list(p), (es) => es.length),
            offset: store.clocks.offset(p)
          })
        ))
        yield* sleep(100)
        // A reader that already answered saw the old state (it may also still be waiting).
        const early = plain.pollUnsafe()
        if (early !== undefined) expect(Exit.isSuccess(early) ? early.value : "failed").toBeUndefined()
        const earlyAll = consistent.pollUnsafe()
        if (earlyAll !== undefined) {
          expect(Exit.isSuccess(earlyAll) ? earlyAll.value : "failed").toEqual({
            customer: undefined,
            byPcid: undefined,
            account: undefined,
            events: 0,
            offset: 0
          })
        }
        expect(yield* Effect.sync(() => Deferred.isDoneUnsafe(gate))).toBe(false)
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(writer)
        const seen = yield* Fiber.join(plain)
        expect([undefined, c]).toContainEqual(seen)
        const all = yield* Fiber.join(consistent)
        const before = { customer: undefined, byPcid: undefined, account: undefined, events: 0, offset: 0 }
        const after = { customer: c, byPcid: c, account: a, events: 1, offset: 7 }
        expect([before, after]).toContainEqual(all)
        expect(yield* store.externalAccounts.get(p, "ExternalAccount:1")).toEqual(a)
      }))

    const failures: ReadonlyArray<readonly [string, Effect.Effect<never, string>, (exit: Exit.Exit<unknown, unknown>) => void]> = [
      ["fails", Effect.fail("refused"), (exit) => expect(failureOf(exit)).toBe("refused")],
      [
        "dies",
        Effect.die(new Error("boom")),
        (exit) => expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
      ],
      [
        "is interrupted (from inside)",
        Effect.interrupt,
        (exit) => expect(Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause)).toBe(true)
      ]
    ]
    for (const [how, ending, check] of failures) {
      storeIt(`a unit of work that ${how} leaves nothing: records, events, timers, offsets, keys`, (store, p) =>
        Effect.gen(function*() {
          const exit = yield* Effect.exit(store.transact((uow) => Effect.andThen(writeEverything(uow, p), ending)))
          check(exit)
          emptySnapshot(yield* snapshot(store, p, FULL_IDS))
          // Its unique keys are free: the same writes commit now.
          yield* store.transact((uow) => writeEverything(uow, p))
          expectFull(yield* snapshot(store, p, FULL_IDS))
        }))
    }

    storeIt("a unit of work interrupted from outside leaves nothing", (store, p) =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const fiber = yield* Effect.forkChild(store.transact((uow) =>
          Effect.gen(function*() {
            yield* writeEverything(uow, p)
            yield* Deferred.succeed(started, undefined)
            yield* sleep(300)
            yield* uow.emit(eventOf(p, "after-sleep"))
          })
        ))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        const exit = yield* Fiber.await(fiber)
        expect(Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause)).toBe(true)
        emptySnapshot(yield* snapshot(store, p, FULL_IDS))
        // The store still works (no lock or connection left behind).
        yield* store.transact((uow) => writeEverything(uow, p))
        expectFull(yield* snapshot(store, p, FULL_IDS))
      }))

    storeIt("a nested transact that fails and is caught rolls back only its own writes", (store, p) =>
      Effect.gen(function*() {
        const result = yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.putCustomer(customerRecord(p, "Customer:outer1", { pcid: "o1" }))
            yield* uow.emit(eventOf(p, "outer1"))
            const inner = yield* Effect.exit(store.transact((inner) =>
              Effect.gen(function*() {
                yield* inner.putCustomer(customerRecord(p, "Customer:inner", { pcid: "i1" }))
                yield* inner.putCustomer(customerRecord(p, "Customer:outer1", { pcid: "o1", name: "overwritten" }))
                yield* inner.emit(eventOf(p, "inner"))
                yield* inner.schedule(timerOf(p, "Timer:inner", T0))
                yield* inner.setClockOffset(p, 99)
                yield* inner.putIdempotency(idempotencyOf(p, "inner", T0, 1000))
                expect(yield* store.customers.get(p, "Customer:inner")).toBeDefined()
                return yield* Effect.fail("inner failed" as const)
              })
            ))
            expect(failureOf(inner)).toBe("inner failed")
            // Inside the outer unit of work, the inner writes are already gone.
            expect(yield* store.customers.get(p, "Customer:inner")).toBeUndefined()
            expect((yield* store.customers.get(p, "Customer:outer1"))?.customer).toMatchObject({ fullName: "Ada Lovelace" })
            // A nested conflict, caught, also leaves the outer unit of work usable.
            const clash = yield* Effect.exit(store.transact((inner) =>
              inner.putCustomer(customerRecord(p, "Customer:clash", { pcid: "o1" }))
            ))
            expectConflict(clash, "customers_active_platform_customer_id")
            // A nested success is kept.
            yield* store.transact((inner) => inner.putCustomer(customerRecord(p, "Customer:nested-ok", { pcid: "n1" })))
            yield* uow.putCustomer(customerRecord(p, "Customer:outer2", { pcid: "o2" }))
            return "committed"
          })
        )
        expect(result).toBe("committed")
        const list = yield* store.customers.list(p, { includeDeleted: true }, { limit: 10 })
        expect(idsOf(list.data, cid)).toEqual(["Customer:nested-ok", "Customer:outer1", "Customer:outer2"])
        expect((yield* store.customers.get(p, "Customer:outer1"))?.customer).toMatchObject({ fullName: "Ada Lovelace" })
        expect((yield* store.events.list(p)).map((e) => e.event.id)).toEqual(["Webhook:outer1"])
        expect(yield* store.timers.pending(p)).toEqual([])
        expect(yield* store.clocks.offset(p)).toBe(0)
        expect(yield* store.idempotency.get(p, "inner", T0)).toBeUndefined()

        // And a nested success is undone when the outer unit of work fails.
        const q = `${p}-2`
        const exit = yield* Effect.exit(store.transact(() =>
          Effect.andThen(
            store.transact((inner) => Effect.andThen(inner.putCustomer(customerRecord(q, "Customer:x")), inner.emit(eventOf(q, "x")))),
            Effect.fail("outer failed" as const)
          )
        ))
        expect(failureOf(exit)).toBe("outer failed")
        expect(yield* store.customers.get(q, "Customer:x")).toBeUndefined()
        expect(yield* store.events.list(q)).toEqual([])
      }))

    storeIt("a StoreConflict ends its unit of work: swallowed inside it, the unit of work dies and keeps nothing", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:holder", { pcid: "taken" })))
        const swallowed = yield* Effect.exit(store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.putCustomer(customerRecord(p, "Customer:lost", { pcid: "free" }))
            yield* uow.emit(eventOf(p, "lost"))
            const clash = yield* Effect.exit(uow.putCustomer(customerRecord(p, "Customer:clash", { pcid: "taken" })))
            expectConflict(clash, "customers_active_platform_customer_id")
            return "done"
          })
        ))
        // As a unique violation aborts a SQL transaction: no store commits after one.
        expect(Exit.isFailure(swallowed) && Cause.hasDies(swallowed.cause)).toBe(true)
        expect(yield* store.customers.get(p, "Customer:lost")).toBeUndefined()
        expect(yield* store.customers.get(p, "Customer:clash")).toBeUndefined()
        expect(yield* store.events.list(p)).toEqual([])
      }))

    storeIt("a StoreConflict caught outside a nested unit of work: the outer one keeps its other writes", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:holder", { pcid: "taken" })))
        const outcome = yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* uow.putCustomer(customerRecord(p, "Customer:kept", { pcid: "free" }))
            yield* uow.emit(eventOf(p, "kept"))
            const nested = yield* Effect.exit(store.transact((inner) =>
              Effect.andThen(inner.emit(eventOf(p, "nested")), inner.putCustomer(customerRecord(p, "Customer:clash", { pcid: "taken" })))
            ))
            expectConflict(nested, "customers_active_platform_customer_id")
            return "done"
          })
        )
        expect(outcome).toBe("done")
        expect(yield* store.customers.get(p, "Customer:kept")).toBeDefined()
        expect(yield* store.customers.get(p, "Customer:clash")).toBeUndefined()
        expect((yield* store.events.list(p)).map((e) => e.event.id)).toEqual(["Webhook:kept"])
      }))
  })

  // ------------------------------------------------------------ uniqueness

  describe("uniqueness", () => {
    storeIt("an active platformCustomerId is unique; a deleted customer frees it", (store, p) =>
      Effect.gen(function*() {
        const C = "customers_active_platform_customer_id"
        yield* store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:1", { pcid: "same" })))
        expectConflict(yield* Effect.exit(store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:2", { pcid: "same" })))), C)
        // Within one unit of work too.
        expectConflict(
          yield* Effect.exit(store.transact((uow) =>
            Effect.andThen(
              uow.putCustomer(customerRecord(p, "Customer:3", { pcid: "fresh" })),
              uow.putCustomer(customerRecord(p, "Customer:4", { pcid: "fresh" }))
            )
          )),
          C
        )
        expect(yield* store.customers.get(p, "Customer:3")).toBeUndefined() // the whole unit of work failed
        // Rewriting the holder itself is no conflict; a deleted one may share the id with an active one.
        yield* store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:1", { pcid: "same", name: "Renamed" })))
        yield* store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:9", { pcid: "same", deleted: true })))
        yield* store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:1", { pcid: "same", deleted: true })))
        yield* store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:2", { pcid: "same" })))
        expect((yield* store.customers.findActiveByPlatformCustomerId(p, "same"))?.customer.id).toBe("Customer:2")
        // Undeleting the old one now conflicts.
        expectConflict(yield* Effect.exit(store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:1", { pcid: "same" })))), C)
        expect((yield* store.customers.list(p, { includeDeleted: true, platformCustomerId: "same" }, { limit: 10 })).totalCount).toBe(3)
      }))

    storeIt("an equivalence key is unique; deletion or a new key frees it", (store, p) =>
      Effect.gen(function*() {
        const C = "external_accounts_equivalence"
        yield* store.transact((uow) => uow.putExternalAccount(accountRecord(p, "ExternalAccount:1", { key: "eq" })))
        expectConflict(yield* Effect.exit(store.transact((uow) => uow.putExternalAccount(accountRecord(p, "ExternalAccount:2", { key: "eq" })))), C)
        // Even across owners: a platform-owned account with the key conflicts too.
        expectConflict(
          yield* Effect.exit(store.transact((uow) => uow.putExternalAccount(accountRecord(p, "ExternalAccount:3", { key: "eq", customerId: null })))),
          C
        )
        yield* store.transact((uow) => uow.putExternalAccount(accountRecord(p, "ExternalAccount:1", { key: "eq", currency: "USD" })))
        yield* store.transact((uow) => uow.putExternalAccount(accountRecord(p, "ExternalAccount:1", { key: "eq-moved" })))
        yield* store.transact((uow) => uow.putExternalAccount(accountRecord(p, "ExternalAccount:2", { key: "eq" })))
        yield* store.transact((uow) => uow.deleteExternalAccount(p, "ExternalAccount:2"))
        yield* store.transact((uow) => uow.putExternalAccount(accountRecord(p, "ExternalAccount:3", { key: "eq" })))
        expect((yield* store.externalAccounts.findByEquivalenceKey(p, "eq"))?.account.id).toBe("ExternalAccount:3")
      }))

    storeIt("one default UMA deposit account per customer (platform accounts and other customers aside)", (store, p) =>
      Effect.gen(function*() {
        const C = "external_accounts_default_uma"
        const put = (id: string, o: AccountOptions) => store.transact((uow) => uow.putExternalAccount(accountRecord(p, id, o)))
        yield* put("ExternalAccount:1", { customerId: "Customer:1", defaultUma: true })
        expectConflict(yield* Effect.exit(put("ExternalAccount:2", { customerId: "Customer:1", defaultUma: true })), C)
        yield* put("ExternalAccount:2", { customerId: "Customer:1", defaultUma: false })
        yield* put("ExternalAccount:3", { customerId: "Customer:2", defaultUma: true })
        yield* put("ExternalAccount:4", { customerId: null, defaultUma: true })
        yield* put("ExternalAccount:5", { customerId: null, defaultUma: true })
        expectConflict(yield* Effect.exit(put("ExternalAccount:2", { customerId: "Customer:1", defaultUma: true })), C)
        // Moving the flag in one unit of work: clear the old, then set the new.
        yield* store.transact((uow) =>
          Effect.andThen(
            uow.putExternalAccount(accountRecord(p, "ExternalAccount:1", { customerId: "Customer:1", defaultUma: false })),
            uow.putExternalAccount(accountRecord(p, "ExternalAccount:2", { customerId: "Customer:1", defaultUma: true }))
          )
        )
        expect((yield* store.externalAccounts.findDefaultUmaDeposit(p, "Customer:1"))?.account.id).toBe("ExternalAccount:2")
        yield* store.transact((uow) => uow.deleteExternalAccount(p, "ExternalAccount:2"))
        yield* put("ExternalAccount:1", { customerId: "Customer:1", defaultUma: true })
        expect((yield* store.externalAccounts.findDefaultUmaDeposit(p, "Customer:1"))?.account.id).toBe("ExternalAccount:1")
      }))

    storeIt("one document of each type per holder", (store, p) =>
      Effect.gen(function*() {
        const C = "documents_holder_type"
        const put = (d: DocumentRecord) => store.transact((uow) => uow.putDocument(d))
        yield* put(documentRecord(p, "Document:1", "Customer:1", "PASSPORT"))
        expectConflict(yield* Effect.exit(put(documentRecord(p, "Document:2", "Customer:1", "PASSPORT"))), C)
        yield* put(documentRecord(p, "Document:2", "Customer:1", "NATIONAL_ID"))
        yield* put(documentRecord(p, "Document:3", "BeneficialOwner:1", "PASSPORT"))
        expectConflict(yield* Effect.exit(put(documentRecord(p, "Document:2", "Customer:1", "PASSPORT"))), C)
        yield* put({ ...documentRecord(p, "Document:1", "Customer:1", "PASSPORT"), poorQuality: true })
        yield* store.transact((uow) => uow.deleteDocument(p, "Document:1"))
        yield* put(documentRecord(p, "Document:4", "Customer:1", "PASSPORT"))
        expect(idsOf(yield* store.documents.listByHolder(p, "Customer:1"), did)).toEqual(["Document:2", "Document:4"])
      }))
  })

  // ------------------------------------------------------------ races

  interface Contested {
    readonly constraint: UniqueConstraint
    /** The winner, if any, as this unit of work reads it. */
    readonly find: (store: StoreService, p: string) => Effect.Effect<unknown>
    readonly put: (uow: UnitOfWork, p: string, i: number) => Effect.Effect<void, StoreConflict>
    /** How many committed holders of the key there are. */
    readonly holders: (store: StoreService, p: string) => Effect.Effect<number, InvalidCursor>
  }
  const contested: ReadonlyArray<Contested> = [
    {
      constraint: "customers_active_platform_customer_id",
      find: (store, p) => store.customers.findActiveByPlatformCustomerId(p, "race"),
      put: (uow, p, i) => uow.putCustomer(customerRecord(p, `Customer:${i}`, { pcid: "race" })),
      holders: (store, p) => Effect.map(store.customers.list(p, { platformCustomerId: "race" }, { limit: 100 }), (r) => r.totalCount ?? -1)
    },
    {
      constraint: "external_accounts_equivalence",
      find: (store, p) => store.externalAccounts.findByEquivalenceKey(p, "race"),
      put: (uow, p, i) => uow.putExternalAccount(accountRecord(p, `ExternalAccount:${i}`, { key: "race" })),
      holders: (store, p) => Effect.map(store.externalAccounts.list(p, { owner: "customer" }, { limit: 100 }), (r) => r.totalCount ?? -1)
    },
    {
      constraint: "external_accounts_default_uma",
      find: (store, p) => store.externalAccounts.findDefaultUmaDeposit(p, "Customer:race"),
      put: (uow, p, i) => uow.putExternalAccount(accountRecord(p, `ExternalAccount:${i}`, { customerId: "Customer:race", defaultUma: true })),
      holders: (store, p) => Effect.map(store.externalAccounts.list(p, { owner: "customer" }, { limit: 100 }), (r) => r.totalCount ?? -1)
    },
    {
      constraint: "documents_holder_type",
      find: (store, p) => Effect.map(store.documents.listByHolder(p, "Customer:race"), (ds) => ds[0]),
      put: (uow, p, i) => uow.putDocument(documentRecord(p, `Document:${i}`, "Customer:race", "PASSPORT")),
      holders: (store, p) => Effect.map(store.documents.list(p, { documentHolder: "Customer:race" }, { limit: 100 }), (r) => r.totalCount ?? -1)
    }
  ]
  const RACERS = 8

  /** Check-then-insert as the operations do it: "inserted", "saw" (the winner), or a StoreConflict. */
  const checkThenInsert = (store: StoreService, c: Contested, p: string, i: number) =>
    store.transact((uow) =>
      Effect.gen(function*() {
        if ((yield* c.find(store, p)) !== undefined) return "saw" as const
        yield* sleep(i % 3) // let the racers interleave
        yield* c.put(uow, p, i)
        return "inserted" as const
      })
    )

  const judgeRace = (exits: ReadonlyArray<Exit.Exit<"saw" | "inserted", StoreConflict>>, constraint: UniqueConstraint) => {
    const inserted = exits.filter((e) => Exit.isSuccess(e) && e.value === "inserted").length
    expect(inserted).toBe(1)
    for (const exit of exits) {
      if (Exit.isSuccess(exit)) expect(["saw", "inserted"]).toContain(exit.value)
      else expectConflict(exit, constraint)
    }
  }

  for (const c of contested) {
    storeIt(`racing check-then-insert on ${c.constraint}: exactly one wins`, (store, p) =>
      Effect.gen(function*() {
        const exits = yield* Effect.all(
          Array.from({ length: RACERS }, (_, i) => Effect.exit(checkThenInsert(store, c, p, i))),
          { concurrency: "unbounded" }
        )
        judgeRace(exits, c.constraint)
        expect(yield* c.holders(store, p)).toBe(1)
        // Blind inserts (no check): one commits, the rest conflict.
        const q = `${p}-blind`
        const blind = yield* Effect.all(
          Array.from({ length: RACERS }, (_, i) => Effect.exit(store.transact((uow) => c.put(uow, q, i)))),
          { concurrency: "unbounded" }
        )
        expect(blind.filter(Exit.isSuccess).length).toBe(1)
        for (const exit of blind) if (Exit.isFailure(exit)) expectConflict(exit, c.constraint)
        expect(yield* c.holders(store, q)).toBe(1)
      }))
  }

  storeIt("racing putIdempotency on one key: one stores, the others get the winner", (store, p) =>
    Effect.gen(function*() {
      const results = yield* Effect.all(
        Array.from({ length: RACERS }, (_, i) => store.transact((uow) => uow.putIdempotency(idempotencyOf(p, "race", T0, 60_000, `h${i}`)))),
        { concurrency: "unbounded" }
      )
      const stored = yield* store.idempotency.get(p, "race", T0)
      expect(stored).toBeDefined()
      expect(results.filter((r) => r === undefined).length).toBe(1)
      for (const r of results) if (r !== undefined) expect(r).toEqual(stored)
    }))

  storeIt("concurrent read-modify-write units of work lose no update", (store, p) =>
    Effect.gen(function*() {
      yield* store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:counter", { name: "0" })))
      const increment = incrementer(store, p)
      yield* Effect.all(Array.from({ length: 6 }, () => Effect.repeat(increment, { times: 3 })), { concurrency: "unbounded" })
      expect(yield* counterOf(store, p)).toBe(24)
    }), 30_000)

  // ------------------------------------------------------------ paging

  describe("paging", () => {
    storeIt("pages concatenate to the (createdAt, id)-ordered list, with rows added and removed between pages", (store, p) =>
      Effect.gen(function*() {
        // 15 customers, three per second, written out of order; some deleted.
        const initial = Array.from({ length: 15 }, (_, i) => {
          const n = (i * 7) % 15 // a permutation: insertion order is not id order
          return customerRecord(p, `Customer:${String(n).padStart(2, "0")}`, {
            createdAt: T0 + Math.floor(n / 3) * SEC,
            deleted: n % 5 === 4
          })
        })
        yield* store.transact((uow) => Effect.forEach(initial, uow.putCustomer, { discard: true }))
        const active = () => Effect.map(store.customers.list(p, {}, { limit: 1000 }), (r) => r.data)
        const expected = [...initial].filter((r) => r.deletedAt === undefined).sort(customerOrder)
        expect(idsOf(yield* active(), cid)).toEqual(idsOf(expected, cid))

        const seen: Array<CustomerRecord> = []
        const behind: Array<string> = []
        const removed: Array<string> = []
        let cursor: string | undefined
        for (let round = 0; round < 50; round++) {
          const page: PageResult<CustomerRecord> = yield* store.customers.list(p, {}, cursor === undefined ? { limit: 4 } : { limit: 4, cursor })
          const total = (yield* active()).length
          expect(page.totalCount).toBe(total)
          seen.push(...page.data)
          if (!page.hasMore) {
            expect(page.nextCursor).toBeUndefined()
            break
          }
          cursor = page.nextCursor
          const last = page.data[page.data.length - 1]!
          const lastMs = Date.parse(last.customer.createdAt)
          // Between pages: rows ahead of the cursor (must show up), behind it (must not), one removed ahead.
          const ahead = [
            customerRecord(p, `Customer:z${round}`, { createdAt: T0 + 10 * SEC + round }),
            customerRecord(p, `${last.customer.id}~${round}`, { createdAt: lastMs })
          ]
          const back = [
            customerRecord(p, `Customer:a${round}`, { createdAt: T0 - SEC }),
            customerRecord(p, `Customer:!${round}`, { createdAt: lastMs })
          ]
          behind.push(...idsOf(back, cid))
          yield* store.transact((uow) => Effect.forEach([...ahead, ...back], uow.putCustomer, { discard: true }))
          const rest = (yield* active()).filter((r) => customerOrder(r, last) > 0 && !r.customer.id.includes("~"))
          const doomed = rest[rest.length - 1]
          if (doomed !== undefined && round === 1) {
            removed.push(doomed.customer.id)
            yield* store.transact((uow) => uow.putCustomer({ ...doomed, deletedAt: iso(T0) }))
          }
        }
        const ids = idsOf(seen, cid)
        expect(new Set(ids).size).toBe(ids.length) // no duplicates
        for (let i = 1; i < seen.length; i++) expect(customerOrder(seen[i - 1]!, seen[i]!)).toBeLessThan(0)
        const final = (yield* active()).filter((r) => !behind.includes(r.customer.id))
        expect(ids).toEqual(idsOf(final, cid)) // no gaps
        expect(removed.length).toBe(1)
        expect(ids).not.toContain(removed[0])
      }))

    storeIt("a page that ends exactly at the last row has no next cursor; the cursor row may be deleted", (store, p) =>
      Effect.gen(function*() {
        const rows = Array.from({ length: 6 }, (_, i) => customerRecord(p, `Customer:${i}`, { createdAt: T0 }))
        yield* store.transact((uow) => Effect.forEach(rows, uow.putCustomer, { discard: true }))
        const first = yield* store.customers.list(p, {}, { limit: 3 })
        expect(first.hasMore).toBe(true)
        expect(idsOf(first.data, cid)).toEqual(["Customer:0", "Customer:1", "Customer:2"])
        // Delete the row the cursor points at: paging goes on after its position.
        yield* store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:2", { createdAt: T0, deleted: true })))
        const second = yield* store.customers.list(p, {}, { limit: 3, cursor: first.nextCursor! })
        expect([idsOf(second.data, cid), second.hasMore, second.nextCursor, second.totalCount]).toEqual([
          ["Customer:3", "Customer:4", "Customer:5"],
          false,
          undefined,
          5
        ])
        expect(yield* store.customers.list(p, {}, { limit: 10 })).toMatchObject({ hasMore: false, totalCount: 5 })
        expect(yield* store.customers.list(`${p}-empty`, {}, { limit: 10 })).toEqual({ data: [], hasMore: false, totalCount: 0 })
      }))

    storeIt("customer filters: created/updated ranges (inclusive ms), type, region, currency, umaAddress, includeDeleted", (store, p) =>
      Effect.gen(function*() {
        const rows = [
          customerRecord(p, "Customer:1", { createdAt: T0, updatedAt: T0 + 50 * SEC, region: "US", currencies: ["USD"], uma: "$one@x.com" }),
          customerRecord(p, "Customer:2", { createdAt: T0 + 10 * SEC, type: "BUSINESS", region: "GB", currencies: ["GBP", "USD"] }),
          customerRecord(p, "Customer:3", { createdAt: T0 + 20 * SEC, updatedAt: T0 + 30 * SEC, region: "US" }),
          customerRecord(p, "Customer:4", { createdAt: T0 + 20 * SEC, type: "BUSINESS", deleted: true, region: "US", currencies: ["USD"] }),
          customerRecord(p, "Customer:5", { createdAt: T0 + 40 * SEC, currencies: ["EUR"], uma: "$five@x.com" })
        ]
        yield* store.transact((uow) => Effect.forEach(rows, uow.putCustomer, { discard: true }))
        const check = (q: CustomerQuery) =>
          Effect.gen(function*() {
            const want = rows.filter(matchCustomer(q)).sort(customerOrder)
            const got = yield* walk((page) => store.customers.list(p, q, page), 2, want.length)
            expect(idsOf(got, cid), JSON.stringify(q)).toEqual(idsOf(want, cid))
            return idsOf(got, cid)
          })
        expect(yield* check({})).toEqual(["Customer:1", "Customer:2", "Customer:3", "Customer:5"])
        expect(yield* check({ created: { from: T0 + 10 * SEC, to: T0 + 20 * SEC } })).toEqual(["Customer:2", "Customer:3"])
        expect(yield* check({ created: { from: T0 + 10 * SEC + 1 } })).toEqual(["Customer:3", "Customer:5"])
        expect(yield* check({ created: { to: T0 + 10 * SEC - 1 } })).toEqual(["Customer:1"])
        expect(yield* check({ updated: { from: T0 + 30 * SEC } })).toEqual(["Customer:1", "Customer:3", "Customer:5"])
        expect(yield* check({ updated: { from: T0 + 30 * SEC, to: T0 + 30 * SEC } })).toEqual(["Customer:3"])
        expect(yield* check({ customerType: "BUSINESS" })).toEqual(["Customer:2"])
        expect(yield* check({ customerType: "BUSINESS", includeDeleted: true })).toEqual(["Customer:2", "Customer:4"])
        expect(yield* check({ region: "US" })).toEqual(["Customer:1", "Customer:3"])
        expect(yield* check({ currency: "USD" })).toEqual(["Customer:1", "Customer:2"])
        expect(yield* check({ currency: "USD", includeDeleted: true, region: "US" })).toEqual(["Customer:1", "Customer:4"])
        expect(yield* check({ umaAddress: "$five@x.com" })).toEqual(["Customer:5"])
        expect(yield* check({ platformCustomerId: "pc-Customer:3" })).toEqual(["Customer:3"])
        expect(yield* check({ includeDeleted: true })).toEqual(["Customer:1", "Customer:2", "Customer:3", "Customer:4", "Customer:5"])
        expect(yield* check({ region: "FR" })).toEqual([])
      }))

    storeIt("every list pages on (createdAt, id) with its filters", (store, p) =>
      Effect.gen(function*() {
        const accounts = Array.from({ length: 9 }, (_, i) =>
          accountRecord(p, `ExternalAccount:${(i * 4) % 9}`, {
            customerId: i % 3 === 0 ? null : `Customer:${i % 2}`,
            currency: i % 2 === 0 ? "USD" : "USDC",
            createdAt: T0 + (i % 4) * SEC
          }))
        const documents = Array.from({ length: 7 }, (_, i) =>
          documentRecord(p, `Document:${(i * 3) % 7}`, `Customer:${i % 2}`, (["PASSPORT", "NATIONAL_ID", "TAX_RETURN", "BANK_STATEMENT"] as const)[Math.floor(i / 2)]!, T0 + (i % 3) * SEC))
        const owners = Array.from({ length: 7 }, (_, i) => ownerRecord(p, `BeneficialOwner:${(i * 3) % 7}`, `Customer:${i % 2}`, T0 + (i % 2) * SEC))
        const statuses: ReadonlyArray<VerificationStatus> = ["IN_PROGRESS", "APPROVED", "RESOLVE_ERRORS"]
        const verifications = Array.from({ length: 8 }, (_, i) =>
          verificationRecord(p, `Verification:${(i * 5) % 8}`, `Customer:${i % 2}`, statuses[i % 3], T0 + (i % 3) * SEC))
        yield* store.transact((uow) =>
          Effect.gen(function*() {
            yield* Effect.forEach(accounts, uow.putExternalAccount, { discard: true })
            yield* Effect.forEach(documents, uow.putDocument, { discard: true })
            yield* Effect.forEach(owners, uow.putBeneficialOwner, { discard: true })
            yield* Effect.forEach(verifications, uow.putVerification, { discard: true })
          })
        )
        for (const limit of [1, 2, 3, 100]) {
          for (const q of [
            { owner: "customer" },
            { owner: "platform" },
            { owner: "customer", customerId: "Customer:1" },
            { owner: "customer", currency: "USD" },
            { owner: "platform", currency: "USDC" }
          ] satisfies ReadonlyArray<ExternalAccountQuery>) {
            const want = accounts.filter(matchAccount(q)).sort(accountOrder)
            const got = yield* walk((page) => store.externalAccounts.list(p, q, page), limit, want.length)
            expect(idsOf(got, aid)).toEqual(idsOf(want, aid))
          }
          for (const holder of [undefined, "Customer:0", "Customer:1"]) {
            const want = documents.filter((d) => holder === undefined || d.document.documentHolder === holder).sort(documentOrder)
            const got = yield* walk((page) => store.documents.list(p, { documentHolder: holder }, page), limit, want.length)
            expect(idsOf(got, did)).toEqual(idsOf(want, did))
          }
          for (const customerId of ["Customer:0", "Customer:1"]) {
            const want = owners.filter((o) => o.owner.customerId === customerId).sort(ownerOrder)
            const got = yield* walk((page) => store.beneficialOwners.list(p, { customerId }, page), limit, want.length)
            expect(idsOf(got, oid)).toEqual(idsOf(want, oid))
          }
          for (const q of [{}, { verificationStatus: "APPROVED" }, { customerId: "Customer:1" }, { customerId: "Customer:0", verificationStatus: "IN_PROGRESS" }] as const) {
            const want = verifications
              .filter((v) =>
                ("customerId" in q ? v.verification.customerId === q.customerId : true) &&
                ("verificationStatus" in q ? v.verification.verificationStatus === q.verificationStatus : true)
              )
              .sort(verificationOrder)
            const got = yield* walk((page) => store.verifications.list(p, q, page), limit, want.length)
            expect(idsOf(got, vid)).toEqual(idsOf(want, vid))
          }
        }
      }))

    storeIt("a garbage, tampered or over-long cursor is an InvalidCursor on every list", (store, p) =>
      Effect.gen(function*() {
        yield* store.transact((uow) =>
          Effect.forEach([0, 1, 2], (i) => uow.putCustomer(customerRecord(p, `Customer:${i}`, { createdAt: T0 + i })), { discard: true })
        )
        const real = (yield* store.customers.list(p, {}, { limit: 1 })).nextCursor!
        expect(real).toBeDefined()
        const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64url")
        const bad = [
          "not a cursor!",
          "%%%",
          "abc=",
          "a+b/c",
          b64("hello"),
          b64("k1:abc:Customer:1"),
          b64("k2:1:Customer:1"),
          b64(`k1:${T0}:`),
          b64(`k1:${T0}:id with space`),
          b64(`k1:-5:Customer:1`),
          `A${real}`,
          `${real.slice(0, 2)}${real.slice(3)}`,
          real.replace(/^./, (ch) => (ch === "a" ? "b" : "a")),
          real.repeat(20),
          "A".repeat(513),
          b64(`k1:${T0}:${"x".repeat(300)}`)
        ]
        const lists: ReadonlyArray<(cursor: string) => Effect.Effect<unknown, InvalidCursor>> = [
          (cursor) => store.customers.list(p, {}, { limit: 1, cursor }),
          (cursor) => store.externalAccounts.list(p, { owner: "customer" }, { limit: 1, cursor }),
          (cursor) => store.documents.list(p, {}, { limit: 1, cursor }),
          (cursor) => store.beneficialOwners.list(p, { customerId: "Customer:0" }, { limit: 1, cursor }),
          (cursor) => store.verifications.list(p, {}, { limit: 1, cursor })
        ]
        for (const cursor of bad) {
          for (const list of lists) {
            const error = failureOf(yield* Effect.exit(list(cursor)))
            expect(error, cursor).toBeInstanceOf(InvalidCursor)
            expect((error as InvalidCursor).cursor).toBe(cursor)
          }
        }
        // The real one still works.
        expect(idsOf((yield* store.customers.list(p, {}, { limit: 5, cursor: real })).data, cid)).toEqual(["Customer:1", "Customer:2"])
      }))
  })

  // ------------------------------------------------------------ tenants

  storeIt("tenant isolation: nothing of platform A is visible or reachable from platform B", (store, a) =>
    Effect.gen(function*() {
      const b = `${a}-B`
      yield* store.transact((uow) => writeEverything(uow, a))
      // B sees nothing of A through any read.
      emptySnapshot(yield* snapshot(store, b, FULL_IDS))
      expect(yield* store.customers.list(b, { includeDeleted: true, platformCustomerId: "pc-1" }, { limit: 10 })).toEqual({
        data: [],
        hasMore: false,
        totalCount: 0
      })
      expect((yield* store.beneficialOwners.list(b, { customerId: "Customer:2" }, { limit: 10 })).totalCount).toBe(0)
      expect((yield* store.documents.list(b, { documentHolder: "Customer:1" }, { limit: 10 })).totalCount).toBe(0)
      expect((yield* store.verifications.list(b, { customerId: "Customer:1" }, { limit: 10 })).totalCount).toBe(0)
      // B's writes do not reach A: deletes, cancels, claims and resets by A's ids.
      yield* store.transact((uow) =>
        Effect.gen(function*() {
          yield* uow.deleteExternalAccount(b, "ExternalAccount:1")
          yield* uow.deleteDocument(b, "Document:1")
          yield* uow.deleteBeneficialOwner(b, "BeneficialOwner:1")
          yield* uow.cancelTimers(b, "ExternalAccount:1")
          expect(yield* store.timers.claimDue(b, T0 + 10 * SEC)).toBeUndefined()
          yield* uow.resetPlatform(b)
        })
      )
      expectFull(yield* snapshot(store, a, FULL_IDS))
      // B can hold the very same ids and unique keys without conflict or overwrite.
      yield* store.transact((uow) => writeEverything(uow, b))
      expectFull(yield* snapshot(store, b, FULL_IDS))
      const renamed = customerRecord(b, "Customer:1", { pcid: "pc-1", name: "B's own" })
      yield* store.transact((uow) => uow.putCustomer(renamed))
      expect((yield* store.customers.get(a, "Customer:1"))?.customer).toMatchObject({ fullName: "Ada Lovelace" })
      expect((yield* store.customers.get(b, "Customer:1"))?.customer).toMatchObject({ fullName: "B's own" })
      expect((yield* store.events.list(a)).every((e) => e.event.platformId === a)).toBe(true)
      // A cursor of A's list used on B's pages only B's rows.
      const cursor = (yield* store.customers.list(a, {}, { limit: 1 })).nextCursor!
      const page = yield* store.customers.list(b, {}, { limit: 10, cursor })
      expect(page.data.every((r) => r.platformId === b)).toBe(true)
    }))

  // ------------------------------------------------------------ the model

  storeIt(
    "random put/delete/list sequences observe the same as a Map-based model",
    (store) =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.array(commandArb, { minLength: 4, maxLength: kind === "postgres" ? 16 : 30, size: "max" }), (commands) =>
            runtime.runPromise(runModel(store, freshPlatform(kind), commands))),
          // PGlite runs the SQL adapter PostgreSQL runs, one statement at a time in WebAssembly:
          // as many sequences as on PostgreSQL (longer ones), the depth on memory.
          { numRuns: numRuns(kind === "memory" ? 150 : 25), endOnFailure: true }
        )
      ),
    30_000
  )

  // ------------------------------------------------------------ two processes (PostgreSQL)

  if (kind === "postgres") {
    describe("two store instances on one database (two processes)", () => {
      let second: ManagedRuntime.ManagedRuntime<Store, unknown>
      beforeAll(async () => {
        second = ManagedRuntime.make(postgresStoreLayer({ url: databaseUrl!, maxConnections: 24 }))
        await second.runPromise(Effect.void)
      }, 30_000)
      afterAll(async () => {
        await second?.dispose()
      })
      const both = () =>
        Promise.all([runtime.runPromise(Effect.service(Store)), second.runPromise(Effect.service(Store))])

      it("each sees the other's commits", async () => {
        const [one, two] = await both()
        const p = freshPlatform(kind)
        await runtime.runPromise(one.transact((uow) => writeEverything(uow, p)))
        expectFull(await second.runPromise(snapshot(two, p, FULL_IDS)))
      })

      for (const c of contested) {
        it(`racing check-then-insert on ${c.constraint} across instances: exactly one wins`, async () => {
          const [one, two] = await both()
          const p = freshPlatform(kind)
          const exits = await Promise.all(
            Array.from({ length: RACERS }, (_, i) =>
              i % 2 === 0
                ? runtime.runPromise(Effect.exit(checkThenInsert(one, c, p, i)))
                : second.runPromise(Effect.exit(checkThenInsert(two, c, p, i))))
          )
          judgeRace(exits, c.constraint)
          expect(await runtime.runPromise(c.holders(one, p))).toBe(1)
        })
      }

      it("concurrent read-modify-write from both instances loses no increment", async () => {
        const [one, two] = await both()
        const p = freshPlatform(kind)
        await runtime.runPromise(one.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:counter", { name: "0" }))))
        const fibers = 4
        const times = 5
        const work = (rt: typeof runtime, store: StoreService) =>
          rt.runPromise(Effect.all(Array.from({ length: fibers }, () => Effect.repeat(incrementer(store, p), { times: times - 1 })), {
            concurrency: "unbounded"
          }))
        await Promise.all([work(runtime, one), work(second, two)])
        expect(await second.runPromise(counterOf(two, p))).toBe(2 * fibers * times)
      }, 30_000)

      it("concurrent schedulers in both instances claim every due timer exactly once", async () => {
        const [one, two] = await both()
        const p = freshPlatform(kind)
        const count = 12
        await runtime.runPromise(one.transact((uow) =>
          Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) => uow.schedule(timerOf(p, `Timer:${i}`, T0 + i, `S${i}`)), {
            discard: true
          })
        ))
        const drain = (store: StoreService) =>
          Effect.gen(function*() {
            const claimed: Array<string> = []
            for (;;) {
              const t = yield* store.transact(() => Effect.tap(store.timers.claimDue(p, T0 + 1000), () => sleep(5)))
              if (t === undefined) return claimed
              claimed.push(t.id)
            }
          })
        const claims = await Promise.all([
          runtime.runPromise(Effect.all([drain(one), drain(one), drain(one)], { concurrency: "unbounded" })),
          second.runPromise(Effect.all([drain(two), drain(two), drain(two)], { concurrency: "unbounded" }))
        ])
        const all = claims.flat(2)
        expect(all.length).toBe(count)
        expect(new Set(all).size).toBe(count)
        expect(await runtime.runPromise(one.timers.pending(p))).toEqual([])
      }, 30_000)
    })
  }
})

// ---------------------------------------------------------------- read-modify-write

/** One unit of work: read the counter customer, write it back incremented. */
const incrementer = (store: StoreService, p: string) =>
  store.transact((uow) =>
    Effect.gen(function*() {
      const current = yield* store.customers.get(p, "Customer:counter")
      if (current === undefined) return yield* Effect.die(new Error("counter missing"))
      const customer = current.customer
      if (customer.customerType !== "INDIVIDUAL") return yield* Effect.die(new Error("counter is not an individual"))
      yield* sleep(1) // hold the read open so concurrent increments overlap
      yield* uow.putCustomer({ ...current, customer: { ...customer, fullName: String(Number(customer.fullName) + 1) } })
    })
  )

const counterOf = (store: StoreService, p: string) =>
  Effect.map(store.customers.get(p, "Customer:counter"), (r) =>
    r !== undefined && r.customer.customerType === "INDIVIDUAL" ? Number(r.customer.fullName) : Number.NaN)

// ---------------------------------------------------------------- filters as the model applies them

const inRange = (ms: number, r: { readonly from?: number | undefined; readonly to?: number | undefined } | undefined) =>
  r === undefined || ((r.from === undefined || ms >= r.from) && (r.to === undefined || ms <= r.to))

const matchCustomer = (q: CustomerQuery) => (r: CustomerRecord): boolean =>
  (q.includeDeleted === true || r.deletedAt === undefined) &&
  (q.platformCustomerId === undefined || r.customer.platformCustomerId === q.platformCustomerId) &&
  (q.customerType === undefined || r.customer.customerType === q.customerType) &&
  inRange(Date.parse(r.customer.createdAt), q.created) &&
  inRange(Date.parse(r.customer.updatedAt), q.updated) &&
  (q.region === undefined || r.customer.region === q.region) &&
  (q.currency === undefined || (r.customer.currencies ?? []).includes(q.currency)) &&
  (q.umaAddress === undefined || r.customer.umaAddress === q.umaAddress)

const matchAccount = (q: ExternalAccountQuery) => (r: ExternalAccountRecord): boolean =>
  (q.owner === "platform" ? r.account.customerId === null : r.account.customerId !== null) &&
  (q.customerId === undefined || r.account.customerId === q.customerId) &&
  (q.currency === undefined || r.account.currency === q.currency)

// ---------------------------------------------------------------- the model-based property

type Write =
  | { readonly t: "putC"; readonly id: number; readonly pcid: number; readonly deleted: boolean; readonly region: "US" | "GB" }
  | { readonly t: "putA"; readonly id: number; readonly owner: number | null; readonly key: number; readonly uma: boolean; readonly usd: boolean }
  | { readonly t: "delA"; readonly id: number }
  | { readonly t: "putD"; readonly id: number; readonly holder: number; readonly type: number }
  | { readonly t: "delD"; readonly id: number }

type Command =
  | Write
  | { readonly t: "batch"; readonly writes: ReadonlyArray<Write>; readonly abort: boolean }
  | { readonly t: "listC"; readonly includeDeleted: boolean; readonly region: "US" | "GB" | undefined; readonly limit: number }
  | { readonly t: "listA"; readonly owner: "customer" | "platform"; readonly customerId: number | undefined; readonly usd: boolean | undefined; readonly limit: number }
  | { readonly t: "listD"; readonly holder: number | undefined; readonly limit: number }
  | { readonly t: "read"; readonly id: number; readonly pcid: number; readonly key: number; readonly holder: number }

const small = fc.integer({ min: 0, max: 4 })
const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ t: fc.constant("putC" as const), id: small, pcid: fc.integer({ min: 0, max: 2 }), deleted: fc.boolean(), region: fc.constantFrom("US" as const, "GB" as const) }),
  fc.record({
    t: fc.constant("putA" as const),
    id: small,
    owner: fc.option(fc.integer({ min: 0, max: 1 }), { nil: null, freq: 4 }),
    key: fc.integer({ min: 0, max: 3 }),
    uma: fc.boolean(),
    usd: fc.boolean()
  }),
  fc.record({ t: fc.constant("delA" as const), id: small }),
  fc.record({ t: fc.constant("putD" as const), id: small, holder: fc.integer({ min: 0, max: 1 }), type: fc.integer({ min: 0, max: 1 }) }),
  fc.record({ t: fc.constant("delD" as const), id: small })
)
const limitArb = fc.integer({ min: 1, max: 4 })
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: writeArb, weight: 6 },
  { arbitrary: fc.record({ t: fc.constant("batch" as const), writes: fc.array(writeArb, { minLength: 1, maxLength: 4 }), abort: fc.boolean() }), weight: 2 },
  {
    arbitrary: fc.record({
      t: fc.constant("listC" as const),
      includeDeleted: fc.boolean(),
      region: fc.constantFrom(undefined, "US" as const, "GB" as const),
      limit: limitArb
    }),
    weight: 2
  },
  {
    arbitrary: fc.record({
      t: fc.constant("listA" as const),
      owner: fc.constantFrom("customer" as const, "platform" as const),
      customerId: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
      usd: fc.option(fc.boolean(), { nil: undefined }),
      limit: limitArb
    }),
    weight: 2
  },
  { arbitrary: fc.record({ t: fc.constant("listD" as const), holder: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }), limit: limitArb }), weight: 1 },
  {
    arbitrary: fc.record({ t: fc.constant("read" as const), id: small, pcid: fc.integer({ min: 0, max: 2 }), key: fc.integer({ min: 0, max: 3 }), holder: fc.integer({ min: 0, max: 1 }) }),
    weight: 2
  }
)

/** A row's creation instant is fixed by its id (three ids share each second, so ties are ordered by id). */
const createdOf = (id: number) => T0 + (id % 2) * SEC
const DOC_TYPES: ReadonlyArray<DocumentType> = ["PASSPORT", "NATIONAL_ID"]

interface Model {
  readonly customers: Map<string, CustomerRecord>
  readonly accounts: Map<string, ExternalAccountRecord>
  readonly documents: Map<string, DocumentRecord>
}

const cloneModel = (m: Model): Model => ({
  customers: new Map(m.customers),
  accounts: new Map(m.accounts),
  documents: new Map(m.documents)
})

const recordOf = (p: string, w: Write) => {
  switch (w.t) {
    case "putC":
      return customerRecord(p, `C${w.id}`, { pcid: `pc${w.pcid}`, deleted: w.deleted, region: w.region, createdAt: createdOf(w.id) })
    case "putA":
      return accountRecord(p, `A${w.id}`, {
        customerId: w.owner === null ? null : `C${w.owner}`,
        key: `k${w.key}`,
        defaultUma: w.uma,
        currency: w.usd ? "USD" : "USDC",
        createdAt: createdOf(w.id)
      })
    case "putD":
      return documentRecord(p, `D${w.id}`, `C${w.holder}`, DOC_TYPES[w.type], createdOf(w.id))
    default:
      return undefined
  }
}

/** The constraints a write would break in the model (several may break at once). */
const modelConflicts = (m: Model, p: string, w: Write): ReadonlyArray<UniqueConstraint> => {
  const out: Array<UniqueConstraint> = []
  if (w.t === "putC") {
    const r = recordOf(p, w) as CustomerRecord
    if (r.deletedAt === undefined) {
      for (const o of m.customers.values()) {
        if (o.customer.id !== r.customer.id && o.deletedAt === undefined && o.customer.platformCustomerId === r.customer.platformCustomerId) {
          out.push("customers_active_platform_customer_id")
        }
      }
    }
  } else if (w.t === "putA") {
    const r = recordOf(p, w) as ExternalAccountRecord
    for (const o of m.accounts.values()) {
      if (o.account.id === r.account.id) continue
      if (o.equivalenceKey === r.equivalenceKey) out.push("external_accounts_equivalence")
      if (
        r.account.customerId !== null && r.account.defaultUmaDepositAccount &&
        o.account.customerId === r.account.customerId && o.account.defaultUmaDepositAccount
      ) out.push("external_accounts_default_uma")
    }
  } else if (w.t === "putD") {
    const r = recordOf(p, w) as DocumentRecord
    for (const o of m.documents.values()) {
      if (o.document.id !== r.document.id && o.document.documentHolder === r.document.documentHolder && o.document.documentType === r.document.documentType) {
        out.push("documents_holder_type")
      }
    }
  }
  return out
}

const modelApply = (m: Model, p: string, w: Write) => {
  switch (w.t) {
    case "putC":
      m.customers.set(`C${w.id}`, recordOf(p, w) as CustomerRecord)
      return
    case "putA":
      m.accounts.set(`A${w.id}`, recordOf(p, w) as ExternalAccountRecord)
      return
    case "delA":
      m.accounts.delete(`A${w.id}`)
      return
    case "putD":
      m.documents.set(`D${w.id}`, recordOf(p, w) as DocumentRecord)
      return
    case "delD":
      m.documents.delete(`D${w.id}`)
      return
  }
}

const storeWrite = (uow: UnitOfWork, p: string, w: Write): Effect.Effect<void, StoreConflict> => {
  switch (w.t) {
    case "putC":
      return uow.putCustomer(recordOf(p, w) as CustomerRecord)
    case "putA":
      return uow.putExternalAccount(recordOf(p, w) as ExternalAccountRecord)
    case "delA":
      return uow.deleteExternalAccount(p, `A${w.id}`)
    case "putD":
      return uow.putDocument(recordOf(p, w) as DocumentRecord)
    case "delD":
      return uow.deleteDocument(p, `D${w.id}`)
  }
}

/** Every page of a list with `limit`: per page its ids, hasMore and totalCount. */
const pagesOf = <R>(list: (page: Page) => Effect.Effect<PageResult<R>, InvalidCursor>, limit: number, id: (r: R) => string) =>
  Effect.gen(function*() {
    const pages: Array<readonly [ReadonlyArray<string>, boolean, number]> = []
    let cursor: string | undefined
    for (let i = 0; i < 100; i++) {
      const page: PageResult<R> = yield* list(cursor === undefined ? { limit } : { limit, cursor })
      pages.push([idsOf(page.data, id), page.hasMore, page.totalCount ?? -1])
      if (!page.hasMore) break
      cursor = page.nextCursor
    }
    return pages
  })

const modelPages = <R>(rows: ReadonlyArray<R>, limit: number, id: (r: R) => string) => {
  const ids = idsOf(rows, id)
  const pages: Array<readonly [ReadonlyArray<string>, boolean, number]> = []
  for (let i = 0; ; i += limit) {
    const chunk = ids.slice(i, i + limit)
    const hasMore = i + limit < ids.length
    pages.push([chunk, hasMore, ids.length])
    if (!hasMore) return pages
  }
}

const runModel = (store: StoreService, p: string, commands: ReadonlyArray<Command>) =>
  Effect.gen(function*() {
    let model: Model = { customers: new Map(), accounts: new Map(), documents: new Map() }
    for (const [step, command] of commands.entries()) {
      const label = `step ${step}: ${JSON.stringify(command)}`
      switch (command.t) {
        case "putC":
        case "putA":
        case "delA":
        case "putD":
        case "delD":
        case "batch": {
          const writes = command.t === "batch" ? command.writes : [command]
          const abort = command.t === "batch" && command.abort
          // The model: the first conflicting write fails the whole unit of work.
          const next = cloneModel(model)
          let expected: ReadonlyArray<UniqueConstraint> | "aborted" | "ok" = "ok"
          for (const w of writes) {
            const conflicts = modelConflicts(next, p, w)
            if (conflicts.length > 0) {
              expected = conflicts
              break
            }
            modelApply(next, p, w)
          }
          if (expected === "ok" && abort) expected = "aborted"
          if (expected === "ok") model = next
          const exit = yield* Effect.exit(store.transact((uow) =>
            Effect.andThen(
              Effect.forEach(writes, (w) => storeWrite(uow, p, w), { discard: true }),
              abort ? Effect.fail("aborted" as const) : Effect.void
            )
          ))
          if (expected === "ok") expect(Exit.isSuccess(exit), label).toBe(true)
          else if (expected === "aborted") expect(failureOf(exit), label).toBe("aborted")
          else expectConflict(exit, expected)
          break
        }
        case "listC": {
          const q: CustomerQuery = { includeDeleted: command.includeDeleted, region: command.region }
          const want = [...model.customers.values()].filter(matchCustomer(q)).sort(customerOrder)
          const got = yield* pagesOf((page) => store.customers.list(p, q, page), command.limit, cid)
          expect(got, label).toEqual(modelPages(want, command.limit, cid))
          break
        }
        case "listA": {
          const q: ExternalAccountQuery = {
            owner: command.owner,
            customerId: command.customerId === undefined ? undefined : `C${command.customerId}`,
            currency: command.usd === undefined ? undefined : command.usd ? "USD" : "USDC"
          }
          const want = [...model.accounts.values()].filter(matchAccount(q)).sort(accountOrder)
          const got = yield* pagesOf((page) => store.externalAccounts.list(p, q, page), command.limit, aid)
          expect(got, label).toEqual(modelPages(want, command.limit, aid))
          break
        }
        case "listD": {
          const holder = command.holder === undefined ? undefined : `C${command.holder}`
          const want = [...model.documents.values()].filter((d) => holder === undefined || d.document.documentHolder === holder).sort(documentOrder)
          const got = yield* pagesOf((page) => store.documents.list(p, { documentHolder: holder }, page), command.limit, did)
          expect(got, label).toEqual(modelPages(want, command.limit, did))
          break
        }
        case "read": {
          const customers = [...model.customers.values()]
          const accounts = [...model.accounts.values()]
          expect(yield* store.customers.get(p, `C${command.id}`), label).toEqual(model.customers.get(`C${command.id}`))
          expect(yield* store.externalAccounts.get(p, `A${command.id}`), label).toEqual(model.accounts.get(`A${command.id}`))
          expect(yield* store.documents.get(p, `D${command.id}`), label).toEqual(model.documents.get(`D${command.id}`))
          expect(yield* store.customers.findActiveByPlatformCustomerId(p, `pc${command.pcid}`), label).toEqual(
            customers.find((c) => c.deletedAt === undefined && c.customer.platformCustomerId === `pc${command.pcid}`)
          )
          expect(yield* store.externalAccounts.findByEquivalenceKey(p, `k${command.key}`), label).toEqual(
            accounts.find((a) => a.equivalenceKey === `k${command.key}`)
          )
          expect(yield* store.externalAccounts.findDefaultUmaDeposit(p, `C${command.holder}`), label).toEqual(
            accounts.find((a) => a.account.customerId === `C${command.holder}` && a.account.defaultUmaDepositAccount)
          )
          expect(idsOf(yield* store.documents.listByHolder(p, `C${command.holder}`), did), label).toEqual(
            idsOf([...model.documents.values()].filter((d) => d.document.documentHolder === `C${command.holder}`).sort(documentOrder), did)
          )
          break
        }
      }
    }
  })

// ---------------------------------------------------------------- PGlite on disk

const repoRoot = fileURLToPath(new URL("../..", import.meta.url))

/** Opens `dir` with pgliteStoreLayer in a separate Node process; resolves with its exit code and output. */
const openInAnotherProcess = async (dir: string) => {
  // Bundled: the child imports it natively rather than through tsx.
  const module = await bundled("src/adapters/sql/index.ts")
  return new Promise<{ readonly code: number | null; readonly output: string }>((resolve) => {
    const script = `
      const { Effect, ManagedRuntime } = await import("effect")
      const { pgliteStoreLayer } = await import(${JSON.stringify(module)})
      const runtime = ManagedRuntime.make(pgliteStoreLayer(process.argv[1]))
      try {
        await runtime.runPromise(Effect.void)
        console.log("OPENED")
        await runtime.dispose()
        process.exit(0)
      } catch (error) {
        console.error(String(error && error.message || error))
        process.exit(3)
      }`
    execFile(
      process.execPath,
      ["--input-type=module", "-e", script, dir],
      { cwd: repoRoot, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, output: stdout + stderr })
    )
  })
}

describe("PGlite on disk", () => {
  // A new directory starts from the run's migrated dump: what is under test here is the
  // directory (its data across reopening, its lock), not the migrations, which run on
  // empty directories in test/adapters/migrations.test.ts and test/server/stores.test.ts.
  const onDisk = (dir: string) => withPgliteTemplate((template) => pgliteStoreLayer(dir, { template }))
  const dirs: Array<string> = []
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "payments-pglite-"))
    dirs.push(dir)
    return dir
  }
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it("keeps what was committed across close and reopen of the same data directory", async () => {
    const dir = join(tempDir(), "data")
    const p = "platform-disk"
    const first = ManagedRuntime.make(onDisk(dir))
    await first.runPromise(Effect.gen(function*() {
      const store = yield* Store
      expect(store.info.kind).toBe("pglite")
      yield* store.transact((uow) => writeEverything(uow, p))
      // Not committed: must not be there after reopening.
      yield* Effect.exit(store.transact((uow) =>
        Effect.andThen(uow.putCustomer(customerRecord(p, "Customer:uncommitted")), Effect.fail("no" as const))
      ))
    }))
    expect(existsSync(join(dir, "payments-service.lock"))).toBe(true)
    await first.dispose()
    expect(existsSync(join(dir, "payments-service.lock"))).toBe(false)

    const again = ManagedRuntime.make(onDisk(dir))
    try {
      await again.runPromise(Effect.gen(function*() {
        const store = yield* Store
        expectFull(yield* snapshot(store, p, FULL_IDS))
        expect(yield* store.customers.get(p, "Customer:uncommitted")).toBeUndefined()
        // The migrations are not re-applied over the data, and new writes work.
        yield* store.transact((uow) => uow.putCustomer(customerRecord(p, "Customer:3", { pcid: "pc-3" })))
        expect((yield* store.customers.list(p, {}, { limit: 10 })).totalCount).toBe(3)
      }))
    } finally {
      await again.dispose()
    }
  }, 30_000)

  // One store holds a directory for both refusals (an open of a directory on disk is most of each test).
  describe("while a store holds the directory", () => {
    let dir = ""
    let holder: ManagedRuntime.ManagedRuntime<Store, unknown> | undefined
    const held = async () => {
      if (holder === undefined) {
        dir = join(tempDir(), "data")
        holder = ManagedRuntime.make(onDisk(dir))
        await holder.runPromise(Effect.void)
      }
      return { dir, holder }
    }
    afterAll(async () => {
      await holder?.dispose()
    })

    it("refuses a second open of it from another process", async () => {
      const { dir, holder } = await held()
      const other = await openInAnotherProcess(dir)
      expect(other.output).not.toContain("OPENED")
      expect(other.code).toBe(3)
      expect(other.output).toMatch(/in use by process \d+/)
      // The holder is unharmed.
      await holder.runPromise(Effect.gen(function*() {
        const store = yield* Store
        yield* store.transact((uow) => uow.putCustomer(customerRecord("p", "Customer:1")))
        expect(yield* store.customers.get("p", "Customer:1")).toBeDefined()
      }))
    }, 30_000)

    it("refuses a second concurrent open of it in the same process", async () => {
      const { dir, holder } = await held()
      const intruder = ManagedRuntime.make(onDisk(dir))
      const exit = await intruder.runPromiseExit(Effect.void)
      await intruder.dispose().catch(() => undefined)
      expect(Exit.isFailure(exit)).toBe(true)
      // The holder is unharmed.
      await holder.runPromise(Effect.gen(function*() {
        const store = yield* Store
        yield* store.transact((uow) => uow.putCustomer(customerRecord("p", "Customer:2")))
        expect(yield* store.customers.get("p", "Customer:2")).toBeDefined()
      }))
    }, 30_000)
  })

  it("takes over a lock left by a process that no longer runs", async () => {
    const dir = join(tempDir(), "data")
    const gone = spawnSync(process.execPath, ["-e", ""]).pid
    expect(gone).toBeGreaterThan(0)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "payments-service.lock"), String(gone))
    const reopened = ManagedRuntime.make(onDisk(dir))
    try {
      await reopened.runPromise(Effect.void)
      expect(readFileSync(join(dir, "payments-service.lock"), "utf8").trim()).toBe(String(process.pid))
    } finally {
      await reopened.dispose()
    }
    expect(existsSync(join(dir, "payments-service.lock"))).toBe(false)
  }, 30_000)
})
