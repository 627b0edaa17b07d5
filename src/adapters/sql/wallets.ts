/**
 * The embedded-wallet part of the SQL Store (migration `5_wallets`): credentials,
 * sessions, signed-request challenges, rate windows and the platform's wallet server
 * keys, as JSON documents keyed by `(platform_id, kind, id)`, found by wallet account
 * or by lookup key. Built from the same statement helper as the rest of the store
 * (./store.ts wires it in). The rules on them run inside serializable units of work.
 */
import { Effect } from "effect"
import type { UnitOfWork, WalletRecord, WalletRecordKind, WalletRecordOf, WalletRepository } from "../../ports/store.js"
import { type DocRow, docOf, type Query, type SqlArea } from "./documents.js"

/** The tables of migration `5_wallets` that `resetPlatform` clears. */
export const WALLET_TABLES: ReadonlyArray<string> = ["wallet_records"]

export type WalletStore = SqlArea<"wallets", Pick<UnitOfWork, "putWalletRecord" | "deleteWalletRecord">>

export const makeWalletStore = (query: Query): WalletStore => {
  const many = <K extends WalletRecordKind>(text: string, params: ReadonlyArray<unknown>) =>
    Effect.map(query<DocRow>(text, params), (rows) => rows.map((r) => docOf<WalletRecordOf<K>>(r)))
  return {
    writes: {
      putWalletRecord: (r: WalletRecord) =>
        Effect.asVoid(query(
          `insert into wallet_records (platform_id, kind, id, account_id, lookup_key, doc)
           values ($1, $2, $3, $4, $5, $6::jsonb)
           on conflict (platform_id, kind, id) do update set account_id = excluded.account_id,
             lookup_key = excluded.lookup_key, doc = excluded.doc`,
          [r.platformId, r.kind, r.id, r.accountId, r.lookupKey ?? null, JSON.stringify(r)]
        )),
      deleteWalletRecord: (platformId, kind, id) =>
        Effect.asVoid(query(`delete from wallet_records where platform_id = $1 and kind = $2 and id = $3`, [platformId, kind, id]))
    },
    tables: WALLET_TABLES,
    repositories: { wallets: {
      get: <K extends WalletRecordKind>(platformId: string, kind: K, id: string) =>
        Effect.map(
          many<K>(`select doc::text as doc from wallet_records where platform_id = $1 and kind = $2 and id = $3`, [platformId, kind, id]),
          (rows) => rows[0]
        ),
      byAccount: <K extends WalletRecordKind>(platformId: string, kind: K, accountId: string) =>
        many<K>(
          `select doc::text as doc from wallet_records where platform_id = $1 and kind = $2 and account_id = $3 order by id`,
          [platformId, kind, accountId]
        ),
      byLookup: <K extends WalletRecordKind>(platformId: string, kind: K, lookupKey: string) =>
        many<K>(
          `select doc::text as doc from wallet_records where platform_id = $1 and kind = $2 and lookup_key = $3 order by id`,
          [platformId, kind, lookupKey]
        )
    } }
  }
}
