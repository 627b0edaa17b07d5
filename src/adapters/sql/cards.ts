/**
 * The cards part of the SQL Store (migration `7_cards`): one row per card with real
 * columns for what is queried (cardholder, platformCardId, state, the funding-source
 * account ids) and the record as its JSON document. Built from the same statement
 * helpers as the rest of the store (./store.ts wires it in).
 *
 * The slot rule's count (`countLive`) reads the partial index `cards_live` (the store's
 * sessions steer away from sequential scans): under SERIALIZABLE that read
 * predicate-locks the index range it covers, so two units of work that both count the
 * live cards and both add one cannot both commit (PostgreSQL aborts one, `transact`
 * reruns it, and the rerun sees the winner's card).
 */
import { Effect } from "effect"
import type { CardQuery, CardRecord, StoreConflict, UnitOfWork } from "../../ports/store.js"
import { millisOf } from "../cursor.js"
import { documentReads, type Query, Where, type SqlArea, type Write } from "./documents.js"

/** The tables of migration `7_cards` that `resetPlatform` clears. */
export const CARD_TABLES: ReadonlyArray<string> = ["cards"]

export type CardStore = SqlArea<"cards", Pick<UnitOfWork, "putCard">>

export const makeCardStore = (query: Query, write: Write): CardStore => {
  const { byId, one, page } = documentReads(query)

  const cardWhere = (platformId: string, q: CardQuery): Where => {
    const w = Where.platform(platformId)
    w.eq("cardholder_id", q.cardholderId)
    if (q.accountId !== undefined) w.add((x) => `funding_sources @> array[${x}::text]`, q.accountId)
    w.eq("platform_card_id", q.platformCardId)
    w.eq("state", q.state)
    return w
  }

  const putCard = (r: CardRecord): Effect.Effect<void, StoreConflict> =>
    write(
      `insert into cards (platform_id, id, created_ms, cardholder_id, platform_card_id, state, funding_sources, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, array(select jsonb_array_elements_text($7::jsonb)), $8::jsonb)
       on conflict (platform_id, id) do update set cardholder_id = excluded.cardholder_id,
         platform_card_id = excluded.platform_card_id, state = excluded.state,
         funding_sources = excluded.funding_sources, doc = excluded.doc`,
      [
        r.platformId,
        r.card.id,
        millisOf(r.card.createdAt),
        r.card.cardholderId,
        r.card.platformCardId,
        r.card.state,
        JSON.stringify(r.card.fundingSources),
        JSON.stringify(r)
      ]
    )

  return {
    writes: { putCard },
    tables: CARD_TABLES,
    repositories: { cards: {
      get: byId<CardRecord>("cards"),
      findByPlatformCardId: (platformId, platformCardId) =>
        one<CardRecord>(
          `select doc::text as doc from cards where platform_id = $1 and platform_card_id = $2`,
          [platformId, platformCardId]
        ),
      list: (platformId, q, p) =>
        page<CardRecord>("cards", cardWhere(platformId, q), p, (r) => ({ createdAt: millisOf(r.card.createdAt), id: r.card.id })),
      countLive: (platformId, cardholderId) =>
        Effect.map(
          cardholderId === undefined
            ? query<{ readonly n: number }>(
              `select count(*)::int as n from cards where platform_id = $1 and state <> 'CLOSED'`,
              [platformId]
            )
            : query<{ readonly n: number }>(
              `select count(*)::int as n from cards where platform_id = $1 and cardholder_id = $2 and state <> 'CLOSED'`,
              [platformId, cardholderId]
            ),
          (rows) => rows[0]?.n ?? 0
        )
    } }
  }
}
