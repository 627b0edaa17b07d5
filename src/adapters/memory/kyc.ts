/** Documents, beneficial owners and verifications, in memory (see ./store.ts). */
import { Effect } from "effect"
import type { BeneficialOwnerRecord, BeneficialOwnerWrites } from "../../ports/beneficial-owners.js"
import type { DocumentRecord, DocumentWrites } from "../../ports/documents.js"
import { UniqueConstraints } from "../../ports/shared.js"
import type { VerificationQuery, VerificationRecord, VerificationWrites } from "../../ports/verifications.js"
import { millisOf } from "../cursor.js"
import { is, keyOf, type MemoryArea, type MemoryContext, noFilter } from "./context.js"
import { MemoryTable } from "./table.js"

export interface KycTables {
  readonly documents: MemoryTable<DocumentRecord>
  readonly beneficialOwners: MemoryTable<BeneficialOwnerRecord>
  readonly verifications: MemoryTable<VerificationRecord>
}

export const kycTables = (): KycTables => ({
  documents: new MemoryTable<DocumentRecord>({
    id: (r) => r.document.id,
    createdAt: (r) => millisOf(r.document.createdAt),
    unique: [{ name: UniqueConstraints.documentsHolderType, key: (r) => keyOf(r.document.documentHolder, r.document.documentType) }],
    groups: [{ name: "holder", key: (r) => r.document.documentHolder }]
  }),
  beneficialOwners: new MemoryTable<BeneficialOwnerRecord>({
    id: (r) => r.owner.id,
    createdAt: (r) => millisOf(r.owner.createdAt),
    groups: [{ name: "customer", key: (r) => r.owner.customerId }]
  }),
  verifications: new MemoryTable<VerificationRecord>({
    id: (r) => r.verification.id,
    createdAt: (r) => millisOf(r.verification.createdAt)
  })
})

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
