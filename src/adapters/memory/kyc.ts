/** Documents, beneficial owners and verifications, in memory (see ./store.ts). */
import { Effect } from "effect"
import type { BeneficialOwnerRecord, BeneficialOwnerWrites } from "../../ports/beneficial-owners.js"
import type { DocumentRecord, DocumentWrites } from "../../ports/documents.js"
import { UniqueConstraints } from "../../ports/shared.js"
import type { VerificationQuery, VerificationRecord, VerificationWrites } from "../../ports/verifications.js"
import { entityTable, is, keyOf, type MemoryArea, type MemoryContext, noFilter } from "./context.js"

/** The area's tables of one platform. */
export const kycTables = () => ({
  documents: entityTable<DocumentRecord>((r) => r.document, {
    unique: [{ name: UniqueConstraints.documentsHolderType, key: (r) => keyOf(r.document.documentHolder, r.document.documentType) }],
    groups: [{ name: "holder", key: (r) => r.document.documentHolder }]
  }),
  beneficialOwners: entityTable<BeneficialOwnerRecord>((r) => r.owner, {
    groups: [{ name: "customer", key: (r) => r.owner.customerId }]
  }),
  verifications: entityTable<VerificationRecord>((r) => r.verification)
}) as const

export type KycTables = ReturnType<typeof kycTables>

const matchesVerification = (q: VerificationQuery) => (r: VerificationRecord): boolean =>
  is(q.customerId, r.verification.customerId) && is(q.verificationStatus, r.verification.verificationStatus)

export const makeKycArea = (
  m: MemoryContext<KycTables>
): MemoryArea<"documents" | "beneficialOwners" | "verifications", DocumentWrites & BeneficialOwnerWrites & VerificationWrites> => ({
  repositories: {
    documents: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.documents.get(id)),
      listByHolder: (platformId, holderId) => m.read(() => m.peek(platformId)?.documents.byGroup("holder", holderId) ?? []),
      list: (platformId, query, page) =>
        m.readPage(() =>
          m.tenantOf(platformId).documents.page((r) => is(query.documentHolder, r.document.documentHolder), page, noFilter(query))
        )
    },
    beneficialOwners: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.beneficialOwners.get(id)),
      listByCustomer: (platformId, customerId) => m.read(() => m.peek(platformId)?.beneficialOwners.byGroup("customer", customerId) ?? []),
      list: (platformId, query, page) =>
        m.readPage(() => m.tenantOf(platformId).beneficialOwners.page((r) => r.owner.customerId === query.customerId, page, false))
    },
    verifications: {
      get: (platformId, id) => m.read(() => m.peek(platformId)?.verifications.get(id)),
      list: (platformId, query, page) =>
        m.readPage(() => m.tenantOf(platformId).verifications.page(matchesVerification(query), page, noFilter(query)))
    }
  },
  writes: {
    putDocument: (r) => m.putRow(m.tenantOf(r.platformId).documents, r.document.id, r),
    deleteDocument: (platformId, id) => m.removeRow(m.tenantOf(platformId).documents, id),
    putBeneficialOwner: (r) => Effect.orDie(m.putRow(m.tenantOf(r.platformId).beneficialOwners, r.owner.id, r)),
    deleteBeneficialOwner: (platformId, id) => m.removeRow(m.tenantOf(platformId).beneficialOwners, id),
    putVerification: (r) => Effect.orDie(m.putRow(m.tenantOf(r.platformId).verifications, r.verification.id, r))
  }
})
