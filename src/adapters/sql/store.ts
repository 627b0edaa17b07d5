/**
 * The SQL Store: one adapter over effect/sql's SqlClient in the PostgreSQL dialect,
 * for a PostgreSQL server (several processes may share it) and for PGlite on disk.
 *
 * - A unit of work is one SERIALIZABLE transaction: it reads its own writes, and
 *   the database aborts one of two units of work whose interleaving could not have
 *   happened one after the other; `transact` then reruns it (bounded, with backoff).
 * - Unique constraints are unique indexes; a violation becomes a `StoreConflict`
 *   named after the index. A conflict caused by a concurrent commit reruns the unit
 *   of work once more, so its own checks see the winner and answer precisely.
 * - Any other database failure is a defect: the request answers 500 and nothing of
 *   the unit of work is kept.
 *
 * Rows are written only by this adapter, from typed records: `doc` is the record's
 * JSON, read back as the record it was written from.
 */
import { Cause, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import type { DomainEvent } from "../../ports/events.js"
import {
  type BeneficialOwnerRecord,
  type CustomerQuery,
  type CustomerRecord,
  type DocumentRecord,
  type ExternalAccountQuery,
  type ExternalAccountRecord,
  type IdempotencyRecord,
  type InvalidCursor,
  type Page,
  type PageResult,
  Store,
  StoreConflict,
  type StoreInfo,
  type TimerOutcome,
  type TimerRecord,
  isUniqueConstraint,
  type UnitOfWork,
  type VerificationQuery,
  type VerificationRecord
} from "../../ports/store.js"
import { millisOf } from "../cursor.js"
import { asLevel } from "../level.js"
import { AGENT_TABLES, makeAgentStore } from "./agents.js"
import { CARD_TRANSACTION_TABLES, makeCardTransactionStore } from "./card-transactions.js"
import { CARD_TABLES, makeCardStore } from "./cards.js"
import { conflictOrDie, docOf, documentReads, Where } from "./documents.js"
import { makeMoneyStore, MONEY_TABLES } from "./money.js"
import { makeOneRoundTrip } from "./one-round-trip.js"
import { makeStablecoinStore, STABLECOIN_TABLES } from "./stablecoins.js"
import { makeWebhookStore, WEBHOOK_TABLES } from "./webhooks.js"
import { makeWalletStore, WALLET_TABLES } from "./wallets.js"

/** How often a unit of work is rerun after a serialization failure or a racing conflict. */
export const MAX_TRANSACTION_ATTEMPTS = 12
const MAX_CONFLICT_RERUNS = 2
const OUTCOME_HISTORY = 1000

const isRetryableSqlError = (u: unknown): boolean =>
  isSqlError(u) && (u.reason._tag === "SerializationError" || u.reason._tag === "DeadlockError")

const retryableCause = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((r) =>
    (Cause.isFailReason(r) && isRetryableSqlError(r.error)) || (Cause.isDieReason(r) && isRetryableSqlError(r.defect))
  )

const conflictCause = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((r) => Cause.isFailReason(r) && r.error instanceof StoreConflict)

const holdsNul = (param: unknown): boolean => typeof param === "string" && param.includes("\u0000")

export interface SqlStoreOptions {
  /**
   * A client whose sessions default to SERIALIZABLE, for the statements that are a unit
   * of work by themselves (see one-round-trip.ts). Without one, PGlite uses its own
   * client (one statement at a time) and PostgreSQL does without them.
   */
  readonly serializableSessions?: SqlClient.SqlClient
}

export const makeSqlStore = (info: StoreInfo, options: SqlStoreOptions = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * A statement. A parameter holding a NUL (U+0000) cannot equal anything PostgreSQL
     * stores (its text cannot hold one), so such a read matches nothing, without asking.
     */
    const query = <Row extends object>(text: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Row>> =>
      params.some(holdsNul) ? Effect.succeed([]) : Effect.orDie(sql.unsafe<Row>(text, params))

    /**
     * A write: a unique violation is a StoreConflict (and marks the unit of work it
     * happened in, which PostgreSQL has aborted), anything else a defect.
     */
    const write = (text: string, params: ReadonlyArray<unknown>): Effect.Effect<void, StoreConflict> =>
      sql.unsafe(text, params).pipe(Effect.asVoid, Effect.catch(conflictOrDie))

    const { one, many, page } = documentReads(query)

    // ------------------------------------------------------------ repositories

    const customerWhere = (platformId: string, q: CustomerQuery): Where => {
      const w = new Where().add((p) => `platform_id = ${p}`, platformId)
      if (q.includeDeleted !== true) w.raw("active")
      if (q.platformCustomerId !== undefined) w.add((p) => `platform_customer_id = ${p}`, q.platformCustomerId)
      if (q.customerType !== undefined) w.add((p) => `customer_type = ${p}`, q.customerType)
      if (q.created?.from !== undefined) w.add((p) => `created_ms >= ${p}::bigint`, q.created.from)
      if (q.created?.to !== undefined) w.add((p) => `created_ms <= ${p}::bigint`, q.created.to)
      if (q.updated?.from !== undefined) w.add((p) => `updated_ms >= ${p}::bigint`, q.updated.from)
      if (q.updated?.to !== undefined) w.add((p) => `updated_ms <= ${p}::bigint`, q.updated.to)
      if (q.region !== undefined) w.add((p) => `region = ${p}`, q.region)
      if (q.currency !== undefined) w.add((p) => `${p}::text = any(currencies)`, q.currency)
      if (q.umaAddress !== undefined) w.add((p) => `uma_address = ${p}`, q.umaAddress)
      return w
    }

    const accountWhere = (platformId: string, q: ExternalAccountQuery): Where => {
      const w = new Where().add((p) => `platform_id = ${p}`, platformId)
      w.raw(q.owner === "platform" ? "customer_id is null" : "customer_id is not null")
      if (q.customerId !== undefined) w.add((p) => `customer_id = ${p}`, q.customerId)
      if (q.currency !== undefined) w.add((p) => `currency = ${p}`, q.currency)
      return w
    }

    const verificationWhere = (platformId: string, q: VerificationQuery): Where => {
      const w = new Where().add((p) => `platform_id = ${p}`, platformId)
      if (q.customerId !== undefined) w.add((p) => `customer_id = ${p}`, q.customerId)
      if (q.verificationStatus !== undefined) w.add((p) => `status = ${p}`, q.verificationStatus)
      return w
    }

    const byId = (table: string) => <T>(platformId: string, id: string) =>
      one<T>(`select doc::text as doc from ${table} where platform_id = $1 and id = $2`, [platformId, id])

    // ------------------------------------------------------------ unit of work

    const money = makeMoneyStore(sql, query)
    const webhooks = makeWebhookStore(sql, query)
    const wallets = makeWalletStore(query)
    const cards = makeCardStore(sql, query)
    const cardTransactions = makeCardTransactionStore(query)
    const stablecoins = makeStablecoinStore(sql, query)
    const agents = makeAgentStore(query)

    const uow: UnitOfWork = {
      ...money.writes,
      ...webhooks.writes,
      ...wallets.writes,
      ...cards.writes,
      ...cardTransactions.writes,
      ...stablecoins.writes,
      ...agents.writes,
      putCustomer: (r) =>
        write(
          `insert into customers (platform_id, id, created_ms, updated_ms, platform_customer_id, active, customer_type, region, uma_address, currencies, doc)
           values ($1, $2, $3::bigint, $4::bigint, $5, $6, $7, $8, $9, array(select jsonb_array_elements_text($10::jsonb)), $11::jsonb)
           on conflict (platform_id, id) do update set updated_ms = excluded.updated_ms, platform_customer_id = excluded.platform_customer_id,
             active = excluded.active, customer_type = excluded.customer_type, region = excluded.region, uma_address = excluded.uma_address,
             currencies = excluded.currencies, doc = excluded.doc`,
          [
            r.platformId,
            r.customer.id,
            millisOf(r.customer.createdAt),
            millisOf(r.customer.updatedAt),
            r.customer.platformCustomerId,
            r.deletedAt === undefined,
            r.customer.customerType,
            r.customer.region ?? null,
            r.customer.umaAddress ?? null,
            JSON.stringify(r.customer.currencies ?? []),
            JSON.stringify(r)
          ]
        ),
      putExternalAccount: (r) =>
        write(
          `insert into external_accounts (platform_id, id, created_ms, customer_id, currency, equivalence_key, default_uma, doc)
           values ($1, $2, $3::bigint, $4, $5, $6, $7, $8::jsonb)
           on conflict (platform_id, id) do update set customer_id = excluded.customer_id, currency = excluded.currency,
             equivalence_key = excluded.equivalence_key, default_uma = excluded.default_uma, doc = excluded.doc`,
          [
            r.platformId,
            r.account.id,
            millisOf(r.account.createdAt),
            r.account.customerId,
            r.account.currency,
            r.equivalenceKey,
            r.account.customerId !== null && r.account.defaultUmaDepositAccount,
            JSON.stringify(r)
          ]
        ),
      deleteExternalAccount: (platformId, id) =>
        Effect.asVoid(query(`delete from external_accounts where platform_id = $1 and id = $2`, [platformId, id])),
      putDocument: (r) =>
        write(
          `insert into documents (platform_id, id, created_ms, holder_id, document_type, doc)
           values ($1, $2, $3::bigint, $4, $5, $6::jsonb)
           on conflict (platform_id, id) do update set holder_id = excluded.holder_id, document_type = excluded.document_type, doc = excluded.doc`,
          [r.platformId, r.document.id, millisOf(r.document.createdAt), r.document.documentHolder, r.document.documentType, JSON.stringify(r)]
        ),
      deleteDocument: (platformId, id) =>
        Effect.asVoid(query(`delete from documents where platform_id = $1 and id = $2`, [platformId, id])),
      putBeneficialOwner: (r) =>
        Effect.orDie(write(
          `insert into beneficial_owners (platform_id, id, created_ms, customer_id, doc) values ($1, $2, $3::bigint, $4, $5::jsonb)
           on conflict (platform_id, id) do update set customer_id = excluded.customer_id, doc = excluded.doc`,
          [r.platformId, r.owner.id, millisOf(r.owner.createdAt), r.owner.customerId, JSON.stringify(r)]
        )),
      deleteBeneficialOwner: (platformId, id) =>
        Effect.asVoid(query(`delete from beneficial_owners where platform_id = $1 and id = $2`, [platformId, id])),
      putVerification: (r) =>
        Effect.orDie(write(
          `insert into verifications (platform_id, id, created_ms, customer_id, status, doc) values ($1, $2, $3::bigint, $4, $5, $6::jsonb)
           on conflict (platform_id, id) do update set status = excluded.status, doc = excluded.doc`,
          [
            r.platformId,
            r.verification.id,
            millisOf(r.verification.createdAt),
            r.verification.customerId,
            r.verification.verificationStatus,
            JSON.stringify(r)
          ]
        )),
      // The platform's event lock (held to commit) makes `seq` order commit order per
      // platform: a reader following `afterSeq` never finds a lower seq committed later.
      emit: (event: DomainEvent) =>
        Effect.asVoid(query(`insert into events (platform_id, id, type, doc)
           select $1, $2, $3, $4::jsonb from (select pg_advisory_xact_lock(hashtext($1))) as platform_event_lock`, [
          event.platformId,
          event.id,
          event.type,
          JSON.stringify(event)
        ])),
      schedule: (t) =>
        Effect.andThen(
          query(`delete from timers where platform_id = $1 and subject_id = $2 and kind = $3`, [t.platformId, t.subjectId, t.kind]),
          query(
            `insert into timers (platform_id, id, at_ms, kind, subject_id, event) values ($1, $2, $3::bigint, $4, $5, $6)`,
            [t.platformId, t.id, t.at, t.kind, t.subjectId, t.event]
          )
        ).pipe(Effect.asVoid),
      cancelTimers: (platformId, subjectId, kind) =>
        Effect.asVoid(
          kind === undefined
            ? query(`delete from timers where platform_id = $1 and subject_id = $2`, [platformId, subjectId])
            : query(`delete from timers where platform_id = $1 and subject_id = $2 and kind = $3`, [platformId, subjectId, kind])
        ),
      recordTimerOutcome: (outcome: TimerOutcome) =>
        Effect.andThen(
          query(`insert into timer_outcomes (platform_id, doc) values ($1, $2::jsonb)`, [outcome.timer.platformId, JSON.stringify(outcome)]),
          query(
            `delete from timer_outcomes where platform_id = $1 and seq <= (
               select seq from timer_outcomes where platform_id = $1 order by seq desc offset ${OUTCOME_HISTORY} limit 1)`,
            [outcome.timer.platformId]
          )
        ).pipe(Effect.asVoid),
      setClockOffset: (platformId, offsetMillis) =>
        Effect.asVoid(query(
          `insert into platform_clocks (platform_id, offset_ms) values ($1, $2::bigint)
           on conflict (platform_id) do update set offset_ms = excluded.offset_ms`,
          [platformId, offsetMillis]
        )),
      putIdempotency: (r: IdempotencyRecord) =>
        Effect.gen(function*() {
          const stored = yield* query(
            `insert into idempotency_keys (platform_id, key, operation, request_hash, body, created_ms, expires_ms)
             values ($1, $2, $3, $4, $5::jsonb, $6::bigint, $7::bigint)
             on conflict (platform_id, key) do update set operation = excluded.operation, request_hash = excluded.request_hash,
               body = excluded.body, created_ms = excluded.created_ms, expires_ms = excluded.expires_ms
             where idempotency_keys.expires_ms <= excluded.created_ms
             returning key`,
            [r.platformId, r.key, r.operation, r.requestHash, JSON.stringify(r.body ?? null), r.createdAt, r.expiresAt]
          )
          if (stored.length > 0) return undefined
          return yield* getIdempotency(r.platformId, r.key, r.createdAt)
        }),
      resetPlatform: (platformId) =>
        Effect.forEach(
          [
            "customers",
            "external_accounts",
            "documents",
            "beneficial_owners",
            "verifications",
            "events",
            "timers",
            "timer_outcomes",
            "platform_clocks",
            "idempotency_keys",
            ...MONEY_TABLES,
            ...WEBHOOK_TABLES,
            ...WALLET_TABLES,
            ...CARD_TABLES,
            ...CARD_TRANSACTION_TABLES,
            ...STABLECOIN_TABLES,
            ...AGENT_TABLES
          ],
          (table) => query(`delete from ${table} where platform_id = $1`, [platformId]),
          { discard: true }
        )
    }

    const getIdempotency = (platformId: string, key: string, now: number) =>
      Effect.map(
        query<{
          readonly operation: string
          readonly request_hash: string
          readonly body: string
          readonly created_ms: number
          readonly expires_ms: number
        }>(
          `select operation, request_hash, body::text as body, created_ms::float8 as created_ms, expires_ms::float8 as expires_ms
           from idempotency_keys where platform_id = $1 and key = $2 and expires_ms > $3::bigint`,
          [platformId, key, now]
        ),
        (rows): IdempotencyRecord | undefined => {
          const row = rows[0]
          return row === undefined ? undefined : {
            platformId,
            key,
            operation: row.operation,
            requestHash: row.request_hash,
            body: JSON.parse(row.body),
            createdAt: row.created_ms,
            expiresAt: row.expires_ms
          }
        }
      )

    interface TimerRow {
      readonly id: string
      readonly at: number
      readonly kind: string
      readonly subject_id: string
      readonly event: string
    }
    const timerOf = (platformId: string, row: TimerRow): TimerRecord => ({
      platformId,
      id: row.id,
      at: row.at,
      kind: row.kind,
      subjectId: row.subject_id,
      event: row.event
    })

    // ------------------------------------------------------------ transactions

    const serializable = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.provideService(SqlClient.BeginTransaction, "BEGIN ISOLATION LEVEL SERIALIZABLE"))

    /** Backoff before rerun `attempt` (1-based): short, growing, jittered so racing reruns spread. */
    const backoffMillis = (attempt: number) => Math.round((1 + Math.random()) * Math.min(50, 2 * 1.6 ** attempt))

    const transact = <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(Effect.serviceOption(sql.transactionService), (outer) => {
        // Nested: a savepoint of the enclosing unit of work, which owns the reruns.
        if (Option.isSome(outer)) return dieOnSqlError(sql.withTransaction(level(work)))
        const once = serializable(level(work))
        const loop = (attempt: number, conflicts: number): Effect.Effect<A, E | SqlError, R> =>
          Effect.catchCause(once, (cause) => {
            if (attempt + 1 < MAX_TRANSACTION_ATTEMPTS && retryableCause(cause)) {
              return Effect.andThen(Effect.sleep(backoffMillis(attempt + 1)), loop(attempt + 1, conflicts))
            }
            if (conflicts < MAX_CONFLICT_RERUNS && conflictCause(cause)) return loop(attempt + 1, conflicts + 1)
            return Effect.failCause(cause)
          })
        return dieOnSqlError(loop(0, 0))
      })

    /** `work` as one level of a unit of work (see ../level.ts). */
    const level = <A, E, R>(work: (uow: UnitOfWork) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      asLevel(Effect.suspend(() => work(uow)))

    const dieOnSqlError = <A, E, R>(effect: Effect.Effect<A, E | SqlError, R>): Effect.Effect<A, E, R> =>
      Effect.catch(effect, (e: E | SqlError) => isSqlError(e) ? Effect.die(e) : Effect.fail(e))

    /** Claims (deletes, inside the caller's transaction) the platform's earliest due timer. */
    const claimDueIn = (platformId: string, now: number): Effect.Effect<TimerRecord | undefined> =>
      Effect.map(
        query<TimerRow>(
          `delete from timers where platform_id = $1 and id = (
             select id from timers where platform_id = $1 and at_ms <= $2::bigint order by at_ms, id limit 1 for update skip locked)
           returning id, at_ms::float8 as at, kind, subject_id, event`,
          [platformId, now]
        ),
        (rows) => rows[0] === undefined ? undefined : timerOf(platformId, rows[0])
      )

    const alone = options.serializableSessions ?? (info.kind === "pglite" ? sql : undefined)
    const oneRoundTrip = alone === undefined
      ? undefined
      : makeOneRoundTrip({ sql, alone, isConstraint: isUniqueConstraint, maxAttempts: MAX_TRANSACTION_ATTEMPTS, backoffMillis })
    const finish = (store: Store["Service"]) => (oneRoundTrip === undefined ? store : oneRoundTrip.install(store))

    return finish(Store.of({
      info,
      ...money.repositories,
      webhooks: webhooks.repository,
      wallets: wallets.repository,
      cards: cards.repository,
      cardTransactions: cardTransactions.repository,
      stablecoins: stablecoins.repository,
      agents: agents.repository,
      customers: {
        get: (platformId, id) => byId("customers")<CustomerRecord>(platformId, id),
        findActiveByPlatformCustomerId: (platformId, pcid) =>
          one<CustomerRecord>(
            `select doc::text as doc from customers where platform_id = $1 and platform_customer_id = $2 and active`,
            [platformId, pcid]
          ),
        findActiveByUmaAddress: (platformId, umaAddress) =>
          one<CustomerRecord>(
            `select doc::text as doc from customers where platform_id = $1 and lower(uma_address) = lower($2) and active`,
            [platformId, umaAddress]
          ),
        list: (platformId, q, p) =>
          page<CustomerRecord>("customers", customerWhere(platformId, q), p, (r) => ({
            createdAt: millisOf(r.customer.createdAt),
            id: r.customer.id
          }))
      },
      externalAccounts: {
        get: (platformId, id) => byId("external_accounts")<ExternalAccountRecord>(platformId, id),
        findByEquivalenceKey: (platformId, key) =>
          one<ExternalAccountRecord>(
            `select doc::text as doc from external_accounts where platform_id = $1 and equivalence_key = $2`,
            [platformId, key]
          ),
        findDefaultUmaDeposit: (platformId, customerId) =>
          one<ExternalAccountRecord>(
            `select doc::text as doc from external_accounts where platform_id = $1 and customer_id = $2 and default_uma`,
            [platformId, customerId]
          ),
        list: (platformId, q, p) =>
          page<ExternalAccountRecord>("external_accounts", accountWhere(platformId, q), p, (r) => ({
            createdAt: millisOf(r.account.createdAt),
            id: r.account.id
          }))
      },
      documents: {
        get: (platformId, id) => byId("documents")<DocumentRecord>(platformId, id),
        listByHolder: (platformId, holderId) =>
          many<DocumentRecord>(
            `select doc::text as doc from documents where platform_id = $1 and holder_id = $2 order by created_ms, id`,
            [platformId, holderId]
          ),
        list: (platformId, q, p) => {
          const w = new Where().add((x) => `platform_id = ${x}`, platformId)
          if (q.documentHolder !== undefined) w.add((x) => `holder_id = ${x}`, q.documentHolder)
          return page<DocumentRecord>("documents", w, p, (r) => ({ createdAt: millisOf(r.document.createdAt), id: r.document.id }))
        }
      },
      beneficialOwners: {
        get: (platformId, id) => byId("beneficial_owners")<BeneficialOwnerRecord>(platformId, id),
        listByCustomer: (platformId, customerId) =>
          many<BeneficialOwnerRecord>(
            `select doc::text as doc from beneficial_owners where platform_id = $1 and customer_id = $2 order by created_ms, id`,
            [platformId, customerId]
          ),
        list: (platformId, q, p) =>
          page<BeneficialOwnerRecord>(
            "beneficial_owners",
            new Where().add((x) => `platform_id = ${x}`, platformId).add((x) => `customer_id = ${x}`, q.customerId),
            p,
            (r) => ({ createdAt: millisOf(r.owner.createdAt), id: r.owner.id })
          )
      },
      verifications: {
        get: (platformId, id) => byId("verifications")<VerificationRecord>(platformId, id),
        list: (platformId, q, p) =>
          page<VerificationRecord>("verifications", verificationWhere(platformId, q), p, (r) => ({
            createdAt: millisOf(r.verification.createdAt),
            id: r.verification.id
          }))
      },
      events: {
        list: (platformId, options) =>
          Effect.map(
            query<{ readonly seq: number; readonly doc: string }>(
              `select seq::float8 as seq, doc::text as doc from events where platform_id = $1 and seq > $2::bigint order by seq limit $3`,
              [platformId, options?.afterSeq ?? 0, options?.limit ?? 1_000_000]
            ),
            (rows) => rows.map((row) => ({ seq: row.seq, event: docOf<DomainEvent>(row) }))
          )
      },
      timers: {
        claimDue: (platformId, now) =>
          Effect.flatMap(Effect.serviceOption(sql.transactionService), (tx) =>
            Option.isNone(tx)
              ? Effect.die(new Error("timers.claimDue must run inside a unit of work"))
              : claimDueIn(platformId, now)),
        pending: (platformId) =>
          Effect.map(
            query<TimerRow>(
              `select id, at_ms::float8 as at, kind, subject_id, event from timers where platform_id = $1 order by at_ms, id`,
              [platformId]
            ),
            (rows) => rows.map((row) => timerOf(platformId, row))
          ),
        outcomes: (platformId) =>
          many<TimerOutcome>(`select doc::text as doc from timer_outcomes where platform_id = $1 order by seq`, [platformId])
      },
      clocks: {
        offset: (platformId) =>
          Effect.map(
            query<{ readonly offset_ms: number }>(
              `select offset_ms::float8 as offset_ms from platform_clocks where platform_id = $1`,
              [platformId]
            ),
            (rows) => rows[0]?.offset_ms ?? 0
          )
      },
      idempotency: {
        get: getIdempotency
      },
      transact
    }))
  })
