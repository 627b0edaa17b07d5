/**
 * Everything a platform holds, read through the Store's repositories and the API, for
 * the snapshot tests (test/http/sandbox-snapshots.e2e.test.ts and its property test):
 * two dumps are equal exactly when the platform holds the same records, ledger, outbox,
 * webhook deliveries and cursor, scheduled moves and their outcomes, and config (not its
 * credentials, which a snapshot leaves out).
 */
import { Effect } from "effect"
import type { Platform } from "../../src/domain/platform.js"
import type { PageResult, Store } from "../../src/ports/store.js"
import type { Api } from "./api.js"

/** Every page of an API list, oldest first. */
export const allOf = async (api: Api, platform: Platform, path: string): Promise<Array<unknown>> => {
  const out: Array<unknown> = []
  let cursor: string | undefined
  for (;;) {
    const sep = path.includes("?") ? "&" : "?"
    const r = await api.call("GET", `${path}${sep}limit=100${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, { as: platform })
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`)
    out.push(...r.body.data)
    if (!r.body.hasMore) return out
    cursor = r.body.nextCursor
  }
}

const allPages = async <R>(list: (cursor: string | undefined) => Effect.Effect<PageResult<R>, unknown>): Promise<Array<R>> => {
  const out: Array<R> = []
  let cursor: string | undefined
  for (;;) {
    const page = await Effect.runPromise(list(cursor))
    out.push(...page.data)
    if (!page.hasMore || page.nextCursor === undefined) return out
    cursor = page.nextCursor
  }
}

export const platformState = async (api: Api, store: Store["Service"], platform: Platform) => {
  const id = platform.id
  const run = <A>(e: Effect.Effect<A>) => Effect.runPromise(e)
  return {
    customers: await allOf(api, platform, "/customers"),
    customerExternalAccounts: await allOf(api, platform, "/customers/external-accounts"),
    platformExternalAccounts: await allOf(api, platform, "/platform/external-accounts"),
    customerInternalAccounts: await allOf(api, platform, "/customers/internal-accounts"),
    platformInternalAccounts: await allOf(api, platform, "/platform/internal-accounts"),
    transactions: await allOf(api, platform, "/transactions"),
    config: await run(store.platformConfigs.get(id)),
    balances: [...await run(store.ledger.allBalances(id))].sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0)),
    journal: await run(store.ledger.entries(id)),
    events: await run(store.events.list(id)),
    deliveries: await allPages((cursor) => store.webhooks.list(id, { limit: 500, cursor })),
    webhookCursor: await run(store.webhooks.cursor(id)),
    timers: await run(store.timers.pending(id)),
    timerOutcomes: await run(store.timers.outcomes(id))
  }
}
