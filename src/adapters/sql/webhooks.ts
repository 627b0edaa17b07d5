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
 * The platform's due heads (at most $4): deliveries that are their resource's first
 * pending one (`head`: a resource's webhooks go in order, so no two of one resource), due
 * at $2, whose lease (if any) ended by $3, the soonest due first, locked. Walks
 * `webhook_deliveries_due` (migration `25_webhook_heads`), which holds the heads only, from
 * the soonest due: the rows it reads are the heads due now (a leased one is passed), never
 * the deliveries waiting behind one of their resource, nor those whose retry is later.
 * Until 2026-11-28 the claim walked every pending delivery from the oldest and looked up
 * each one's resource: behind a long chain (an account's balance webhooks while the
 * receiver lags) or a receiver that is down, it read the whole backlog at every claim
 * (docs/performance.md, "A claim that reads the due heads only").
 */
export const CLAIM_DUE_SQL = `select d.doc::text as doc from webhook_deliveries d
   where d.platform_id = $1 and d.status = 'PENDING' and d.head and d.next_ms <= $2::bigint
     and (d.lease_until is null or d.lease_until <= $3::bigint)
   order by d.next_ms, d.seq limit $4 for update of d skip locked`

/**
 * A platform's deliveries by id ($2, a JSON array): the worker reads a batch's before
 * recording its attempts, one primary-key lookup per id. Written as `id in (select
 * json_array_elements_text($2))` until 2026-11-28, PGlite's planner joined it to every
 * delivery of the platform (a bitmap scan of `webhook_deliveries_keyset`, then a hash
 * join): 4 → 16 ms a record under the webhook soak, growing with the table; as `id = any
 * (…)`, it took `webhook_deliveries_keyset` too, whose `id` comes after `seq`, so the
 * scan passed every entry of the platform.
 */
export const GET_MANY_SQL = `select d.doc::text as doc from json_array_elements_text($2::json) as w(id),
   lateral (select doc from webhook_deliveries where platform_id = $1 and id = w.id limit 1) d`

/**
 * Deliveries written in one statement: $1 a JSON array of [platform, id, seq, resource,
 * status, next_ms, lease_until], $2 their documents; `onConflict` says what becomes of a
 * delivery already there. `written` is the batch's rows the statement writes (all of them,
 * or those not there yet). Each written row is its resource's head if it is pending and
 * no pending delivery of the resource comes before it: none in the table (but the rows
 * written, whose states are the batch's) and none written. Its `returning` is what
 * `HEADS_MOVED` reads.
 */
const deliveriesSql = (onConflict: string, written: (row: string) => string) =>
  `insert into webhook_deliveries (platform_id, id, seq, resource_id, status, next_ms, lease_until, doc, head)
     select k->>0, k->>1, (k->>2)::bigint, k->>3, k->>4, (k->>5)::bigint, (k->>6)::bigint, d::jsonb,
       k->>4 = 'PENDING' and (k->>2)::bigint = b.first_pending
       and not exists (select 1 from webhook_deliveries e
         where e.platform_id = k->>0 and e.resource_id = k->>3 and e.status = 'PENDING' and e.seq < (k->>2)::bigint
           and (e.platform_id, e.id) not in (select o->>0, o->>1 from json_array_elements($1::json) o where ${written("o")}))
     from (select k, d, min(case when k->>4 = 'PENDING' then (k->>2)::bigint end) over (partition by k->>0, k->>3) as first_pending
       from rows from (json_array_elements($1::json), string_to_table($2::text, chr(1))) as batch(k, d)
       where ${written("k")}) b
     on conflict (platform_id, id) ${onConflict}
     returning platform_id, id, seq, resource_id, status`
/** Every row of the batch is written. */
const allWritten = () => "true"
/** The rows of the batch not in the table yet. */
const newOnes = (row: string) => `not exists (select 1 from webhook_deliveries x where x.platform_id = ${row}->>0 and x.id = ${row}->>1)`
/** New deliveries, each unless its id is there (an event imported twice is added once). */
const ADD_DELIVERIES_SQL = deliveriesSql("do nothing", newOnes)
/** Deliveries' new states. */
const PUT_DELIVERIES_SQL = deliveriesSql(
  "do update set status = excluded.status, next_ms = excluded.next_ms, lease_until = excluded.lease_until, doc = excluded.doc, head = excluded.head",
  allWritten
)
/**
 * The head marks of the rows a batch did not write, in the same statement (`{self}`: the
 * rows it wrote, as they are now; $3 their platform: a batch's statement holds one
 * platform's deliveries). Per resource written: `nt` is its first pending delivery among
 * the rows not written, `nb` the first pending among the written ones, `o` its first
 * pending before the statement (its head, the mark's one holder). The new head is the
 * earlier of `nt` and `nb`; a row not written changes only if it is `nt` becoming head (the
 * head was written and is finished, or moved behind it) or `o` losing it (a written row
 * comes before it: a redelivery). The rows that change are found first (their seqs, by
 * `webhook_deliveries_resource`: one or two entries per resource, whatever its backlog),
 * then flipped through `webhook_deliveries_keyset` (platform, seq: a delivery's seq is its
 * event's, one per platform). Not by id: the primary key and the keyset index both lead
 * with the platform, and PGlite's planner, without statistics, took the keyset index for
 * `id = any (…)`, which reads every entry of the platform.
 */
const HEADS_MOVED = `update webhook_deliveries d set head = not d.head
     where d.platform_id = $3 and d.seq = any ((
       select coalesce(array_agg(t.seq), '{}') from (
         select r.resource_id, nt.id as nt_id, nt.seq as nt_seq, nb.seq as nb_seq, o.id as o_id, o.seq as o_seq,
           exists (select 1 from {self} s where s.platform_id = $3 and s.id = o.id) as o_written
         from (select distinct s.resource_id from {self} s where s.platform_id = $3) r
         left join lateral (select e.id, e.seq from webhook_deliveries e
           where e.platform_id = $3 and e.resource_id = r.resource_id and e.status = 'PENDING'
             and not exists (select 1 from {self} s where s.platform_id = $3 and s.id = e.id)
           order by e.seq limit 1) nt on true
         left join lateral (select min(s.seq) as seq from {self} s
           where s.platform_id = $3 and s.resource_id = r.resource_id and s.status = 'PENDING') nb on true
         left join lateral (select e.id, e.seq from webhook_deliveries e
           where e.platform_id = $3 and e.resource_id = r.resource_id and e.status = 'PENDING'
           order by e.seq limit 1) o on true) x,
       lateral (
         select x.nt_seq as seq where x.nt_id is not null and (x.nb_seq is null or x.nt_seq < x.nb_seq) and x.o_written
         union all
         select x.o_seq where x.o_id is not null and not x.o_written and x.nb_seq < x.o_seq) t)::bigint[])`
/** A batch's statement as the store defers it (with `HEADS_MOVED`): for the bounded-work tests, which run its plan. */
export const deliveriesStatement = (kind: "add" | "put", records: ReadonlyArray<WebhookDeliveryRecord>) => ({
  text: kind === "add" ? ADD_DELIVERIES_SQL : PUT_DELIVERIES_SQL,
  params: [...deliveriesParams(records), records[0]?.platformId ?? ""],
  also: HEADS_MOVED
})

/** A batch by platform, in the order of each platform's first delivery (one statement each: see `HEADS_MOVED`). */
const byPlatform = (records: ReadonlyArray<WebhookDeliveryRecord>): ReadonlyArray<ReadonlyArray<WebhookDeliveryRecord>> => {
  const first = records[0]
  if (first === undefined) return []
  if (records.every((r) => r.platformId === first.platformId)) return [records]
  const groups = new Map<string, Array<WebhookDeliveryRecord>>()
  for (const r of records) {
    const group = groups.get(r.platformId)
    if (group === undefined) groups.set(r.platformId, [r])
    else group.push(r)
  }
  return [...groups.values()]
}

/**
 * The row name every batch of deliveries is deferred under (./pending.ts `defer`): two
 * batches of one unit of work never go in one statement, where each would move the head
 * marks from the same snapshot.
 */
const DELIVERIES_ROW = "webhook_deliveries"

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
  defer: (text: string, params: ReadonlyArray<unknown>, row?: string, also?: string) => Effect.Effect<void>
): WebhookStore => {
  const deliveryOf = (row: DocRow): WebhookDeliveryRecord => docOf<WebhookDeliveryRecord>(row)
  const writeDeliveries = (kind: "add" | "put", records: ReadonlyArray<WebhookDeliveryRecord>) =>
    Effect.forEach(byPlatform(records), (batch) => {
      const statement = deliveriesStatement(kind, batch)
      return defer(statement.text, statement.params, DELIVERIES_ROW, statement.also)
    }, { discard: true })

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
    addWebhookDeliveries: (records) => writeDeliveries("add", records),
    putWebhookDeliveries: (records) => writeDeliveries("put", records),
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
            GET_MANY_SQL,
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
