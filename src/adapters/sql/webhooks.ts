/**
 * The webhook part of the SQL Store (migration `4_webhooks`): each platform's signing
 * key, its outbox cursor, and its deliveries with their attempts. Built from the same
 * SqlClient and statement helper as the rest of the store (./store.ts wires it in).
 *
 * A delivery is claimed with `FOR UPDATE SKIP LOCKED` inside the claiming unit of work
 * (which writes a lease and commits); the HTTP request happens outside any transaction
 * and its result is written by a second unit of work. So two processes never make the
 * same attempt, and a process that dies mid-attempt leaves a lease that expires.
 */
import { Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import type {
  InvalidCursor,
  Page,
  PageResult,
  UnitOfWork,
  WebhookDeliveryRecord,
  WebhookRepository,
  WebhookSigningKeyRecord
} from "../../ports/store.js"
import { decodeCursor, encodeCursor } from "../cursor.js"
import { TOTAL_COUNT_LIMIT, totalCountOf } from "../../ports/shared.js"
import { type DocRow, docOf, DOCUMENT_SEPARATOR, type Query, type SqlArea } from "./documents.js"

/**
 * The platform's oldest pending deliveries (at most $4) due at $2 whose lease (if any) ended
 * by $3 and that are each their resource's oldest pending one (a resource's webhooks go in
 * order, so no two of one resource), locked. Walks
 * `webhook_deliveries_pending` from the oldest; the resource's oldest pending `seq` is a
 * scalar subquery, one lookup down `webhook_deliveries_resource` per row passed. Written
 * as `not exists (an earlier pending one of the resource)` until 2026-11-28, PostgreSQL's
 * planner (PGlite's, with no statistics) made it an anti-join whose inner side read every
 * pending delivery of the platform for each row passed: 13 ms a claim with a backlog of
 * 3,000 (docs/performance.md, "Webhooks under the money load").
 */
export const CLAIM_DUE_SQL = `select d.doc::text as doc from webhook_deliveries d
   where d.platform_id = $1 and d.status = 'PENDING' and d.next_ms <= $2::bigint
     and (d.lease_until is null or d.lease_until <= $3::bigint)
     and (select e.seq from webhook_deliveries e where e.platform_id = d.platform_id
       and e.resource_id = d.resource_id and e.status = 'PENDING' order by e.seq limit 1) = d.seq
   order by d.seq limit $4 for update of d skip locked`

/**
 * Deliveries written in one statement: $1 a JSON array of [platform, id, seq, resource,
 * status, next_ms, lease_until], $2 their documents; `onConflict` says what becomes of a
 * delivery already there.
 */
const deliveriesSql = (onConflict: string) =>
  `insert into webhook_deliveries (platform_id, id, seq, resource_id, status, next_ms, lease_until, doc)
     select k->>0, k->>1, (k->>2)::bigint, k->>3, k->>4, (k->>5)::bigint, (k->>6)::bigint, d::jsonb
     from rows from (json_array_elements($1::json), string_to_table($2::text, chr(1))) as written(k, d)
     on conflict (platform_id, id) ${onConflict}`
/** New deliveries, each unless its id is there (an event imported twice is added once). */
const ADD_DELIVERIES_SQL = deliveriesSql("do nothing")
/** Deliveries' new states. */
const PUT_DELIVERIES_SQL = deliveriesSql(
  "do update set status = excluded.status, next_ms = excluded.next_ms, lease_until = excluded.lease_until, doc = excluded.doc"
)

const deliveriesParams = (records: ReadonlyArray<WebhookDeliveryRecord>): ReadonlyArray<string> => {
  const keys: Array<readonly [string, string, number, string, string, number, number | null]> = []
  const docs: Array<string> = []
  for (const r of records) {
    keys.push([r.platformId, r.id, r.seq, r.resourceId, r.status, r.nextAttemptAt, r.lease?.until ?? null])
    docs.push(JSON.stringify(r))
  }
  return [JSON.stringify(keys), docs.join(DOCUMENT_SEPARATOR)]
}

/** The tables of migration `4_webhooks` that `resetPlatform` clears (the signing key stays). */
export const WEBHOOK_TABLES: ReadonlyArray<string> = ["webhook_cursors", "webhook_deliveries"]

/**
 * Ends every lease of a database no other process can be using (a PGlite data directory,
 * which one process at a time owns: ./pglite.ts): a lease there was left by a process that
 * died mid-attempt, so its attempts are due again at once rather than when the lease
 * would have expired. Never on PostgreSQL, where other processes' leases are live.
 */
export const endLeasesLeftBehind = (sql: SqlClient.SqlClient) =>
  Effect.asVoid(sql.unsafe(`update webhook_deliveries set lease_until = null, doc = doc - 'lease' where lease_until is not null`))

export type WebhookStore = SqlArea<
  "webhooks",
  Pick<UnitOfWork, "putWebhookSigningKey" | "setWebhookCursor" | "addWebhookDeliveries" | "putWebhookDeliveries" | "sweepWebhookDeliveries">
>

interface KeyRow {
  readonly private_key_hex: string
  readonly public_key_hex: string
  readonly created_ms: number
}

const keyOf = (platformId: string, row: KeyRow): WebhookSigningKeyRecord => ({
  platformId,
  privateKeyHex: row.private_key_hex,
  publicKeyHex: row.public_key_hex,
  createdAt: row.created_ms
})

/**
 * `defer` keeps a write for the unit of work's next statement (./pending.ts): the cursor and
 * a batch of deliveries go with the statement after them, or with COMMIT (one round trip
 * fewer for each unit of work of the webhook worker); at once outside a unit of work.
 */
export const makeWebhookStore = (
  sql: SqlClient.SqlClient,
  query: Query,
  flushAll: Effect.Effect<void>,
  defer: (text: string, params: ReadonlyArray<unknown>) => Effect.Effect<void>
): WebhookStore => {
  const deliveryOf = (row: DocRow): WebhookDeliveryRecord => docOf<WebhookDeliveryRecord>(row)

  const signingKey = (platformId: string) =>
    Effect.map(
      query<KeyRow>(
        `select private_key_hex, public_key_hex, created_ms::float8 as created_ms from webhook_keys where platform_id = $1`,
        [platformId]
      ),
      (rows) => rows[0] === undefined ? undefined : keyOf(platformId, rows[0])
    )

  const writes: WebhookStore["writes"] = {
    putWebhookSigningKey: (r) =>
      Effect.andThen(
        query(
          `insert into webhook_keys (platform_id, private_key_hex, public_key_hex, created_ms) values ($1, $2, $3, $4::bigint)
           on conflict (platform_id) do nothing`,
          [r.platformId, r.privateKeyHex, r.publicKeyHex, r.createdAt]
        ),
        Effect.map(signingKey(r.platformId), (stored) => stored ?? r)
      ),
    setWebhookCursor: (platformId, seq) =>
      defer(
        `insert into webhook_cursors (platform_id, seq) values ($1, $2::bigint)
         on conflict (platform_id) do update set seq = excluded.seq`,
        [platformId, seq]
      ),
    // One statement for the batch (an import of a few hundred events was a round trip each,
    // and the pass made no attempt until its import caught up: docs/performance.md).
    addWebhookDeliveries: (records) => records.length === 0 ? Effect.void : defer(ADD_DELIVERIES_SQL, deliveriesParams(records)),
    putWebhookDeliveries: (records) => records.length === 0 ? Effect.void : defer(PUT_DELIVERIES_SQL, deliveriesParams(records)),
    // The oldest finished deliveries through `webhook_deliveries_finished` (migration
    // 17), at most `limit` rows; rows another unit of work holds are left for next time.
    sweepWebhookDeliveries: (platformId, finishedBefore, limit) =>
      Effect.map(
        query<{ readonly removed: number }>(
          `with removed as (
             delete from webhook_deliveries where (platform_id, id) in (
               select platform_id, id from webhook_deliveries
               where platform_id = $1 and status <> 'PENDING' and (doc->>'updatedAt')::float8 < $2::float8
               order by (doc->>'updatedAt')::float8 limit $3 for update skip locked)
             and status <> 'PENDING'
             returning 1)
           select count(*)::int as removed from removed`,
          [platformId, finishedBefore, Math.max(0, Math.floor(limit))]
        ),
        (rows) => rows[0]?.removed ?? 0
      )
  }

  const list = (platformId: string, p: Page): Effect.Effect<PageResult<WebhookDeliveryRecord>, InvalidCursor> =>
    Effect.gen(function*() {
      const params: Array<unknown> = [platformId]
      let keyset = "true"
      if (p.cursor !== undefined) {
        const after = decodeCursor(p.cursor)
        if (!("createdAt" in after)) return yield* Effect.fail(after)
        params.push(after.createdAt, after.id)
        keyset = `(seq, id) < ($2::bigint, $3::text)`
      }
      params.push(p.limit + 1)
      const rows = yield* query<DocRow & { readonly total: number }>(
        `select doc::text as doc, (select count(*)::int from (select 1 from webhook_deliveries where platform_id = $1 limit ${TOTAL_COUNT_LIMIT + 1}) counted) as total
         from webhook_deliveries where platform_id = $1 and ${keyset}
         order by seq desc, id desc limit $${params.length}`,
        params
      )
      const all = rows.map(deliveryOf)
      const hasMore = all.length > p.limit
      const data = hasMore ? all.slice(0, p.limit) : all
      const last = data[data.length - 1]
      const totalCount = rows[0]?.total ?? (yield* query<{ readonly total: number }>(
        `select count(*)::int as total from (select 1 from webhook_deliveries where platform_id = $1 limit ${TOTAL_COUNT_LIMIT + 1}) counted`,
        [platformId]
      ))[0]?.total ?? 0
      return hasMore && last !== undefined
        ? { data, hasMore, nextCursor: encodeCursor({ createdAt: last.seq, id: last.id }), ...totalCountOf(totalCount) }
        : { data, hasMore, ...totalCountOf(totalCount) }
    })

  const repository: WebhookRepository = {
    signingKey,
    cursor: (platformId) =>
      Effect.map(
        query<{ readonly seq: number }>(`select seq::float8 as seq from webhook_cursors where platform_id = $1`, [platformId]),
        (rows) => rows[0]?.seq
      ),
    lastEventSeq: (platformId) =>
      Effect.andThen(flushAll, Effect.map(
        query<{ readonly seq: number | null }>(`select max(seq)::float8 as seq from events where platform_id = $1`, [platformId]),
        (rows) => rows[0]?.seq ?? 0
      )),
    get: (platformId, id) =>
      Effect.map(
        query<DocRow>(`select doc::text as doc from webhook_deliveries where platform_id = $1 and id = $2`, [platformId, id]),
        (rows) => rows[0] === undefined ? undefined : deliveryOf(rows[0])
      ),
    list,
    getMany: (platformId, ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : Effect.map(
          query<DocRow>(
            `select doc::text as doc from webhook_deliveries where platform_id = $1 and id in (select json_array_elements_text($2::json))`,
            [platformId, JSON.stringify(ids)]
          ),
          (rows) => rows.map(deliveryOf)
        ),
    claimDue: (platformId, now, leaseNow, limit) =>
      Effect.flatMap(Effect.serviceOption(sql.transactionService), (tx) =>
        Option.isNone(tx)
          ? Effect.die(new Error("webhooks.claimDue must run inside a unit of work"))
          : limit < 1
          ? Effect.succeed([])
          : Effect.map(query<DocRow>(CLAIM_DUE_SQL, [platformId, now, leaseNow, Math.floor(limit)]), (rows) => rows.map(deliveryOf)))
  }

  return { tables: WEBHOOK_TABLES, writes, repositories: { webhooks: repository } }
}
