/** Customers and their external accounts, in memory (see ./store.ts). */
import type { CustomerQuery, CustomerRecord, CustomerWrites } from "../../ports/customers.js"
import type { ExternalAccountQuery, ExternalAccountRecord, ExternalAccountWrites } from "../../ports/external-accounts.js"
import { UniqueConstraints } from "../../ports/shared.js"
import { millisOf } from "../cursor.js"
import { entityTable, inRange, is, type MemoryArea, type MemoryContext, noFilter } from "./context.js"

/** The area's tables of one platform. */
export const customerTables = () => ({
  customers: entityTable<CustomerRecord>((r) => r.customer, {
    unique: [
      {
        name: UniqueConstraints.customersActivePlatformCustomerId,
        key: (r) => r.deletedAt === undefined ? r.customer.platformCustomerId : undefined
      },
      {
        name: UniqueConstraints.customersActiveUmaAddress,
        key: (r) => r.deletedAt === undefined ? r.customer.umaAddress?.toLowerCase() : undefined
      }
    ],
    groups: [{ name: "active", key: (r) => r.deletedAt === undefined ? "" : undefined }]
  }),
  externalAccounts: entityTable<ExternalAccountRecord>((r) => r.account, {
    unique: [
      { name: UniqueConstraints.externalAccountsEquivalence, key: (r) => r.equivalenceKey },
      {
        name: UniqueConstraints.externalAccountsDefaultUma,
        key: (r) => r.account.customerId !== null && r.account.defaultUmaDepositAccount ? r.account.customerId : undefined
      }
    ],
    // By owner: one customer's accounts, or all customers' / the platform's.
    groups: [
      { name: "customer", key: (r) => r.account.customerId ?? undefined },
      { name: "owner", key: (r) => r.account.customerId === null ? "platform" : "customer" }
    ]
  })
}) as const

export type CustomerTables = ReturnType<typeof customerTables>

const matchesCustomer = (q: CustomerQuery) => (r: CustomerRecord): boolean =>
  (q.includeDeleted === true || r.deletedAt === undefined) &&
  is(q.platformCustomerId, r.customer.platformCustomerId) &&
  is(q.customerType, r.customer.customerType) &&
  inRange(millisOf(r.customer.createdAt), q.created) &&
  inRange(millisOf(r.customer.updatedAt), q.updated) &&
  is(q.region, r.customer.region) &&
  (q.currency === undefined || (r.customer.currencies ?? []).includes(q.currency)) &&
  is(q.umaAddress, r.customer.umaAddress)

/** A query that keeps every customer (deleted ones included): its total is the table size. */
const keepsAll = (q: CustomerQuery): boolean => q.includeDeleted === true && noFilter({ ...q, includeDeleted: undefined })

const matchesAccount = (q: ExternalAccountQuery) => (r: ExternalAccountRecord): boolean =>
  (q.owner === "platform" ? r.account.customerId === null : r.account.customerId !== null) &&
  is(q.customerId, r.account.customerId) &&
  is(q.currency, r.account.currency)

export const makeCustomerArea = (
  m: MemoryContext<CustomerTables>
): MemoryArea<"customers" | "externalAccounts", CustomerWrites & ExternalAccountWrites> => ({
  repositories: {
    customers: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.customers.get(id)),
      findActiveByPlatformCustomerId: (platformId, pcid) =>
        m.read(() => m.peek(platformId)?.customers.byUnique(UniqueConstraints.customersActivePlatformCustomerId, pcid)),
      findActiveByUmaAddress: (platformId, umaAddress) =>
        m.read(() => m.peek(platformId)?.customers.byUnique(UniqueConstraints.customersActiveUmaAddress, umaAddress.toLowerCase())),
      list: (platformId, query, page) =>
        m.readPage(() => {
          const table = m.tenantOf(platformId).customers
          if (query.includeDeleted === true) return table.page(matchesCustomer(query), page, keepsAll(query))
          // Active customers have their own ordered index: a first page and its total need not read deleted ones.
          return table.pageGroup("active", "", matchesCustomer(query), page, noFilter({ ...query, includeDeleted: undefined }))
        })
    },
    externalAccounts: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.externalAccounts.get(id)),
      findByEquivalenceKey: (platformId, key) =>
        m.read(() => m.peek(platformId)?.externalAccounts.byUnique(UniqueConstraints.externalAccountsEquivalence, key)),
      findDefaultUmaDeposit: (platformId, customerId) =>
        m.read(() => m.peek(platformId)?.externalAccounts.byUnique(UniqueConstraints.externalAccountsDefaultUma, customerId)),
      list: (platformId, query, page) =>
        m.readPage(() => {
          const table = m.tenantOf(platformId).externalAccounts
          const filter = matchesAccount(query)
          if (query.customerId !== undefined) return table.pageGroup("customer", query.customerId, filter, page, false)
          return table.pageGroup("owner", query.owner, filter, page, query.currency === undefined)
        })
    }
  },
  writes: {
    putCustomer: (r) => m.putRow(m.tenantOf(r.platformId).customers, r.customer.id, r),
    putExternalAccount: (r) => m.putRow(m.tenantOf(r.platformId).externalAccounts, r.account.id, r),
    deleteExternalAccount: (platformId, id) => m.removeRow(m.tenantOf(platformId).externalAccounts, id)
  }
})
