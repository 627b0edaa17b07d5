/** Cards and card transactions, in memory (see ./store.ts). */
import { Effect } from "effect"
import type { CardQuery, CardRecord, CardTransactionQuery, CardTransactionRecord, CardWrites } from "../../ports/cards.js"
import { UniqueConstraints } from "../../ports/shared.js"
import { millisOf } from "../cursor.js"
import { entityTable, inRange, is, type MemoryArea, type MemoryContext, noFilter } from "./context.js"

/** The area's tables of one platform. */
export const cardTables = () => ({
  cards: entityTable<CardRecord>((r) => r.card, {
    unique: [{ name: UniqueConstraints.cardsPlatformCardId, key: (r) => r.card.platformCardId }],
    // The slot rule counts live cards, of the platform and of one cardholder.
    groups: [
      { name: "live", key: (r) => r.card.state === "CLOSED" ? undefined : "" },
      { name: "liveByHolder", key: (r) => r.card.state === "CLOSED" ? undefined : r.card.cardholderId }
    ]
  }),
  cardTransactions: entityTable<CardTransactionRecord>((r) => r.transaction, {
    groups: [{ name: "card", key: (r) => r.transaction.cardId }]
  })
}) as const

export type CardTables = ReturnType<typeof cardTables>

const matchesCard = (q: CardQuery) => (r: CardRecord): boolean =>
  is(q.cardholderId, r.card.cardholderId) &&
  (q.accountId === undefined || r.card.fundingSources.includes(q.accountId)) &&
  is(q.platformCardId, r.card.platformCardId) &&
  is(q.state, r.card.state)

const matchesCardTransaction = (q: CardTransactionQuery) => (r: CardTransactionRecord): boolean =>
  is(q.cardId, r.transaction.cardId) &&
  is(q.customerId, r.transaction.customerId) &&
  is(q.platformCustomerId, r.transaction.platformCustomerId) &&
  is(q.accountId, r.transaction.accountId) &&
  is(q.direction, r.transaction.direction) &&
  inRange(millisOf(r.transaction.createdAt), q.created)

export const makeCardArea = (m: MemoryContext<CardTables>): MemoryArea<"cards" | "cardTransactions", CardWrites> => ({
  repositories: {
    cards: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.cards.get(id)),
      findByPlatformCardId: (platformId, platformCardId) =>
        m.read(() => m.peek(platformId)?.cards.byUnique(UniqueConstraints.cardsPlatformCardId, platformCardId)),
      list: (platformId, query, page) => m.readPage(() => m.tenantOf(platformId).cards.page(matchesCard(query), page, noFilter(query))),
      countLive: (platformId, cardholderId) =>
        m.read(() => {
          const cards = m.peek(platformId)?.cards
          if (cards === undefined) return 0
          return cardholderId === undefined ? cards.groupSize("live", "") : cards.groupSize("liveByHolder", cardholderId)
        })
    },
    cardTransactions: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.cardTransactions.get(id)),
      list: (platformId, query, page) =>
        m.readPage(() => m.tenantOf(platformId).cardTransactions.page(matchesCardTransaction(query), page, noFilter(query)))
    }
  },
  writes: {
    putCard: (r) => m.putRow(m.tenantOf(r.platformId).cards, r.card.id, r),
    putCardTransaction: (r) => Effect.orDie(m.putRow(m.tenantOf(r.platformId).cardTransactions, r.transaction.id, r))
  }
})
