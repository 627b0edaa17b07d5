/**
 * The customers part of the SQL Store (migration `1_initial`): customers and their
 * external accounts, with real columns for what is queried or unique and the record as
 * its JSON document. ./store.ts wires it in; ./one-round-trip.ts writes an external
 * account with the same columns (`externalAccountParams`).
 */
import { Effect } from "effect"
import type { CustomerQuery, CustomerRecord, CustomerWrites } from "../../ports/customers.js"
import type { ExternalAccountQuery, ExternalAccountRecord, ExternalAccountWrites } from "../../ports/external-accounts.js"
import { millisOf } from "../cursor.js"
import { cachedDoc } from "./payment-reads.js"
import { documentReads, type Query, type SqlArea, Where, type Write } from "./documents.js"

/** The WHERE of a customer list (exported for the bounded-work tests and bench/scale-explain.ts, which EXPLAIN it). */
export const customerWhere = (platformId: string, q: CustomerQuery): Where => {
  const w = Where.platform(platformId)
  if (q.includeDeleted !== true) w.raw("active")
  w.eq("platform_customer_id", q.platformCustomerId)
  w.eq("customer_type", q.customerType)
  w.within("created_ms", q.created)
  w.within("updated_ms", q.updated)
  w.eq("region", q.region)
  if (q.currency !== undefined) w.add((p) => `${p}::text = any(currencies)`, q.currency)
  w.eq("uma_address", q.umaAddress)
  return w
}

/** The WHERE of an external account list (exported as `customerWhere` is). */
export const externalAccountWhere = (platformId: string, q: ExternalAccountQuery): Where => {
  const w = Where.platform(platformId)
  w.raw(q.owner === "platform" ? "customer_id is null" : "customer_id is not null")
  w.eq("customer_id", q.customerId)
  w.eq("currency", q.currency)
  return w
}

/** The columns of an external account row, in the order the inserts name them. */
export const externalAccountParams = (r: ExternalAccountRecord): Array<unknown> => [
  r.platformId,
  r.account.id,
  millisOf(r.account.createdAt),
  r.account.customerId,
  r.account.currency,
  r.equivalenceKey,
  r.account.customerId !== null && r.account.defaultUmaDepositAccount,
  JSON.stringify(r)
]

export const makeCustomerStore = (
  query: Query,
  write: Write
): SqlArea<"customers" | "externalAccounts", CustomerWrites & ExternalAccountWrites> => {
  const { one, page, byId } = documentReads(query)
  // Read ahead by a payment's unit of work, a get may answer from the attempt (./payment-reads.ts).
  const customer = byId<CustomerRecord>("customers")
  const externalAccount = byId<ExternalAccountRecord>("external_accounts")
  return {
    tables: ["customers", "external_accounts"],
    writes: {
      putCustomer: (r) =>
        write(
          `insert into customers (platform_id, id, created_ms, updated_ms, platform_customer_id, active, customer_type, region, uma_address, currencies, doc)
           values ($1, $2, $3::bigint, $4::bigint, $5, $6, $7, $8, $9, array(select jsonb_array_elements_text($10::jsonb)), $11::jsonb)
           on conflict (platform_id, id) do update set updated_ms = excluded.updated_ms, platform_customer_id = excluded.platform_customer_id,
             active = excluded.active, customer_type = excluded.customer_type, region = excluded.region, uma_address = excluded.uma_address,
             currencies = excluded.currencies, doc = excluded.doc`,
          [
            r.platformId,
            r.customer.id,
            millisOf(r.customer.createdAt),
            millisOf(r.customer.updatedAt),
            r.customer.platformCustomerId,
            r.deletedAt === undefined,
            r.customer.customerType,
            r.customer.region ?? null,
            r.customer.umaAddress ?? null,
            JSON.stringify(r.customer.currencies ?? []),
            JSON.stringify(r)
          ]
        ),
      putExternalAccount: (r) =>
        write(
          `insert into external_accounts (platform_id, id, created_ms, customer_id, currency, equivalence_key, default_uma, doc)
           values ($1, $2, $3::bigint, $4, $5, $6, $7, $8::jsonb)
           on conflict (platform_id, id) do update set customer_id = excluded.customer_id, currency = excluded.currency,
             equivalence_key = excluded.equivalence_key, default_uma = excluded.default_uma, doc = excluded.doc`,
          externalAccountParams(r)
        ),
      deleteExternalAccount: (platformId, id) =>
        Effect.asVoid(query(`delete from external_accounts where platform_id = $1 and id = $2`, [platformId, id]))
    },
    repositories: {
      customers: {
        get: (platformId, id) => cachedDoc("customers", platformId, id, customer(platformId, id)),
        findActiveByPlatformCustomerId: (platformId, pcid) =>
          one<CustomerRecord>(
            `select doc::text as doc from customers where platform_id = $1 and platform_customer_id = $2 and active`,
            [platformId, pcid]
          ),
        findActiveByUmaAddress: (platformId, umaAddress) =>
          one<CustomerRecord>(
            `select doc::text as doc from customers where platform_id = $1 and lower(uma_address) = lower($2) and active`,
            [platformId, umaAddress]
          ),
        list: (platformId, q, p) =>
          page<CustomerRecord>("customers", customerWhere(platformId, q), p, (r) => ({ createdAt: millisOf(r.customer.createdAt), id: r.customer.id }))
      },
      externalAccounts: {
        get: (platformId, id) => cachedDoc("external_accounts", platformId, id, externalAccount(platformId, id)),
        findByEquivalenceKey: (platformId, key) =>
          one<ExternalAccountRecord>(`select doc::text as doc from external_accounts where platform_id = $1 and equivalence_key = $2`, [platformId, key]),
        findDefaultUmaDeposit: (platformId, customerId) =>
          one<ExternalAccountRecord>(
            `select doc::text as doc from external_accounts where platform_id = $1 and customer_id = $2 and default_uma`,
            [platformId, customerId]
          ),
        list: (platformId, q, p) =>
          page<ExternalAccountRecord>("external_accounts", externalAccountWhere(platformId, q), p, (r) => ({ createdAt: millisOf(r.account.createdAt), id: r.account.id }))
      }
    }
  }
}
