/**
 * The KYC part of the SQL Store (migration `1_initial`): documents, beneficial owners
 * and verifications, one row each with real columns for what is queried or unique and
 * the record as its JSON document. ./store.ts wires it in.
 */
import { Effect } from "effect"
import type { BeneficialOwnerRecord, BeneficialOwnerWrites } from "../../ports/beneficial-owners.js"
import type { DocumentRecord, DocumentWrites } from "../../ports/documents.js"
import type { VerificationRecord, VerificationWrites } from "../../ports/verifications.js"
import { millisOf } from "../cursor.js"
import { documentReads, type Query, type SqlArea, Where, type Write } from "./documents.js"

export const makeKycStore = (
  query: Query,
  write: Write
): SqlArea<"documents" | "beneficialOwners" | "verifications", DocumentWrites & BeneficialOwnerWrites & VerificationWrites> => {
  const { many, page, byId } = documentReads(query)
  const remove = (table: string) => (platformId: string, id: string) =>
    Effect.asVoid(query(`delete from ${table} where platform_id = $1 and id = $2`, [platformId, id]))
  return {
    tables: ["documents", "beneficial_owners", "verifications"],
    writes: {
      putDocument: (r) =>
        write(
          `insert into documents (platform_id, id, created_ms, holder_id, document_type, doc)
           values ($1, $2, $3::bigint, $4, $5, $6::jsonb)
           on conflict (platform_id, id) do update set holder_id = excluded.holder_id, document_type = excluded.document_type, doc = excluded.doc`,
          [r.platformId, r.document.id, millisOf(r.document.createdAt), r.document.documentHolder, r.document.documentType, JSON.stringify(r)]
        ),
      deleteDocument: remove("documents"),
      putBeneficialOwner: (r) =>
        Effect.orDie(write(
          `insert into beneficial_owners (platform_id, id, created_ms, customer_id, doc) values ($1, $2, $3::bigint, $4, $5::jsonb)
           on conflict (platform_id, id) do update set customer_id = excluded.customer_id, doc = excluded.doc`,
          [r.platformId, r.owner.id, millisOf(r.owner.createdAt), r.owner.customerId, JSON.stringify(r)]
        )),
      deleteBeneficialOwner: remove("beneficial_owners"),
      putVerification: (r) =>
        Effect.orDie(write(
          `insert into verifications (platform_id, id, created_ms, customer_id, status, doc) values ($1, $2, $3::bigint, $4, $5, $6::jsonb)
           on conflict (platform_id, id) do update set status = excluded.status, doc = excluded.doc`,
          [r.platformId, r.verification.id, millisOf(r.verification.createdAt), r.verification.customerId, r.verification.verificationStatus, JSON.stringify(r)]
        ))
    },
    repositories: {
      documents: {
        get: byId<DocumentRecord>("documents"),
        listByHolder: (platformId, holderId) =>
          many<DocumentRecord>(
            `select doc::text as doc from documents where platform_id = $1 and holder_id = $2 order by created_ms, id`,
            [platformId, holderId]
          ),
        list: (platformId, q, p) => {
          const w = Where.platform(platformId)
          if (q.documentHolder !== undefined) w.add((x) => `holder_id = ${x}`, q.documentHolder)
          return page<DocumentRecord>("documents", w, p, (r) => ({ createdAt: millisOf(r.document.createdAt), id: r.document.id }))
        }
      },
      beneficialOwners: {
        get: byId<BeneficialOwnerRecord>("beneficial_owners"),
        listByCustomer: (platformId, customerId) =>
          many<BeneficialOwnerRecord>(
            `select doc::text as doc from beneficial_owners where platform_id = $1 and customer_id = $2 order by created_ms, id`,
            [platformId, customerId]
          ),
        list: (platformId, q, p) =>
          page<BeneficialOwnerRecord>(
            "beneficial_owners",
            Where.platform(platformId).add((x) => `customer_id = ${x}`, q.customerId),
            p,
            (r) => ({ createdAt: millisOf(r.owner.createdAt), id: r.owner.id })
          )
      },
      verifications: {
        get: byId<VerificationRecord>("verifications"),
        list: (platformId, q, p) => {
          const w = Where.platform(platformId)
          if (q.customerId !== undefined) w.add((x) => `customer_id = ${x}`, q.customerId)
          if (q.verificationStatus !== undefined) w.add((x) => `status = ${x}`, q.verificationStatus)
          return page<VerificationRecord>("verifications", w, p, (r) => ({ createdAt: millisOf(r.verification.createdAt), id: r.verification.id }))
        }
      }
    }
  }
}
