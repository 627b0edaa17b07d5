/** Embedded-wallet records, in memory (see ./store.ts): one table keyed `kind\u0000id`. */
import { Effect } from "effect"
import type { WalletRecord, WalletRecordKind, WalletRecordOf, WalletWrites } from "../../ports/wallets.js"
import { keyOf, type MemoryArea, type MemoryContext } from "./context.js"
import { MemoryTable } from "./table.js"

/** The area's tables of one platform. */
export const walletTables = () => ({
  wallet: new MemoryTable<WalletRecord>({
    id: (r) => keyOf(r.kind, r.id),
    createdAt: () => 0,
    groups: [
      { name: "account", key: (r) => keyOf(r.kind, r.accountId) },
      { name: "lookup", key: (r) => r.lookupKey === undefined ? undefined : keyOf(r.kind, r.lookupKey) }
    ]
  })
}) as const

export type WalletTables = ReturnType<typeof walletTables>

export const makeWalletArea = (m: MemoryContext<WalletTables>): MemoryArea<"wallets", WalletWrites> => {
  /** The records of one kind in a group (the table holds every kind; the group key names it). */
  const inGroup = <K extends WalletRecordKind>(platformId: string, group: "account" | "lookup", kind: K, key: string) =>
    m.read(() => (m.peek(platformId)?.wallet.byGroup(group, keyOf(kind, key)) ?? []) as ReadonlyArray<WalletRecordOf<K>>)
  return {
    repositories: {
      wallets: {
        get: <K extends WalletRecordKind>(platformId: string, kind: K, id: string) =>
          m.read(() => m.peek(platformId)?.wallet.get(keyOf(kind, id)) as WalletRecordOf<K> | undefined),
        byAccount: (platformId, kind, accountId) => inGroup(platformId, "account", kind, accountId),
        byLookup: (platformId, kind, lookupKey) => inGroup(platformId, "lookup", kind, lookupKey)
      }
    },
    writes: {
      putWalletRecord: (r) => Effect.orDie(m.putRow(m.tenantOf(r.platformId).wallet, keyOf(r.kind, r.id), r)),
      deleteWalletRecord: (platformId, kind, id) => m.removeRow(m.tenantOf(platformId).wallet, keyOf(kind, id))
    }
  }
}
