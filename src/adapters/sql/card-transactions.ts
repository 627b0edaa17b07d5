/**
 * The card-transactions part of the SQL Store (migration `8_card_transactions`): one row
 * per card transaction with real columns for what GET /transactions filters on (card,
 * customer, platformCustomerId, funding account, direction, status, creation order) and
 * the record as its JSON document. Built from the same statement helpers as the rest of
 * the store (./store.ts wires it in).
 */
import { Effect } from "effect"
import type { CardTransactionQuery, CardTransactionRecord, CardTransactionRepository, UnitOfWork } from "../../ports/store.js"
import { millisOf } from "../cursor.js"
import { documentReads, type Query, Where, type SqlArea } from "./documents.js"

/** The tables of migration `8_card_transactions` that `resetPlatform` clears. */
export const CARD_TRANSACTION_TABLES: ReadonlyArray<string> = ["card_transactions"]

export type CardTransactionStore = SqlArea<"cardTransactions", Pick<UnitOfWork, "putCardTransaction">>

export const makeCardTransactionStore = (query: Query): CardTransactionStore => {
  const { one, page } = documentReads(query)

  const where = (platformId: string, q: CardTransactionQuery): Where => {
    const w = new Where().add((x) => `platform_id = ${x}`, platformId)
    if (q.cardId !== undefined) w.add((x) => `card_id = ${x}`, q.cardId)
    if (q.customerId !== undefined) w.add((x) => `customer_id = ${x}`, q.customerId)
    if (q.platformCustomerId !== undefined) w.add((x) => `platform_customer_id = ${x}`, q.platformCustomerId)
    if (q.accountId !== undefined) w.add((x) => `account_id = ${x}`, q.accountId)
    if (q.direction !== undefined) w.add((x) => `direction = ${x}`, q.direction)
    if (q.created?.from !== undefined) w.add((x) => `created_ms >= ${x}::bigint`, q.created.from)
    if (q.created?.to !== undefined) w.add((x) => `created_ms <= ${x}::bigint`, q.created.to)
    return w
  }

  const putCardTransaction = (r: CardTransactionRecord): Effect.Effect<void> =>
    Effect.asVoid(query(
      `insert into card_transactions (platform_id, id, created_ms, card_id, customer_id, platform_customer_id, account_id, direction, status, doc)
       values ($1, $2, $3::bigint, $4, $5, $6, $7, $8, $9, $10::jsonb)
       on conflict (platform_id, id) do update set account_id = excluded.account_id, status = excluded.status, doc = excluded.doc`,
      [
        r.platformId,
        r.transaction.id,
        millisOf(r.transaction.createdAt),
        r.transaction.cardId,
        r.transaction.customerId,
        r.transaction.platformCustomerId,
        r.transaction.accountId ?? null,
        r.transaction.direction,
        r.transaction.status,
        JSON.stringify(r)
      ]
    ))

  return {
    writes: { putCardTransaction },
    tables: CARD_TRANSACTION_TABLES,
    repositories: { cardTransactions: {
      get: (platformId, id) =>
        one<CardTransactionRecord>(`select doc::text as doc from card_transactions where platform_id = $1 and id = $2`, [platformId, id]),
      list: (platformId, q, p) =>
        page<CardTransactionRecord>("card_transactions", where(platformId, q), p, (r) => ({
          createdAt: millisOf(r.transaction.createdAt),
          id: r.transaction.id
        }))
    } }
  }
}
