/**
 * Helpers for the card end-to-end suites (test/http/cards*.e2e.test.ts): a money client
 * with card calls, the stored card record (its funding-source bindings) and the card
 * events of the outbox.
 */
import { Effect } from "effect"
import type { Platform } from "../../src/domain/platform.js"
import { Store } from "../../src/ports/store.js"
import type { Api } from "./api.js"
import { moneyClient } from "./money.js"

export interface CardBody {
  readonly id: string
  readonly cardholderId: string
  readonly platformCardId: string
  readonly state: string
  readonly status: string
  readonly stateReason: string | null
  readonly pinStatus: string
  readonly fundingSources: ReadonlyArray<string>
  readonly maxSpendPerTransaction: number | null
  readonly currency: string
  readonly updatedAt: string
  readonly [key: string]: unknown
}

export const cardClient = (api: Api, platform: Platform) => {
  const m = moneyClient(api, platform)
  /** An approved customer and its internal accounts by currency. */
  const holder = async (fullName = "Ada Lovelace") => {
    const c = await m.customer({}, fullName)
    return { ...c, accounts: await m.accountsOf(c.id) }
  }
  const issue = async (body: Record<string, unknown>): Promise<CardBody> => m.ok("POST", "/cards", { form: "VIRTUAL", ...body }, 201)
  const issueFor = (h: { id: string; accounts: Record<string, string> }, extra: Record<string, unknown> = {}) =>
    issue({ cardholderId: h.id, fundingSources: [h.accounts["USD"]], ...extra })
  const patch = (id: string, body: unknown) => m.call("PATCH", `/cards/${encodeURIComponent(id)}`, body)
  const record = async (id: string) => {
    const context = await api.ready
    return Effect.runPromise(Effect.provideContext(Effect.flatMap(Effect.service(Store), (s) => s.cards.get(platform.id, id)), context))
  }
  /** The card events of the outbox (type and card), oldest first, of one card if given. */
  const cardEvents = async (cardId?: string) =>
    (await m.events())
      .filter((e) => e.type.startsWith("CARD."))
      .map((e) => ({ type: e.type, card: e.data as CardBody }))
      .filter((e) => cardId === undefined || e.card.id === cardId)
  return { ...m, holder, issue, issueFor, patch, record, cardEvents }
}
export type CardClient = ReturnType<typeof cardClient>
