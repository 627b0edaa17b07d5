/** UMA invitations, in memory (see ./store.ts): per platform, found by code across platforms. */
import { Effect } from "effect"
import type { InvitationRecord, InvitationWrites } from "../../ports/invitations.js"
import { millisOf } from "../cursor.js"
import type { MemoryArea, MemoryContext } from "./context.js"
import { MemoryTable } from "./table.js"

export interface InvitationTables {
  readonly invitations: MemoryTable<InvitationRecord>
}

export const invitationTables = (): InvitationTables => ({
  invitations: new MemoryTable<InvitationRecord>({
    id: (r) => r.invitation.code,
    createdAt: (r) => millisOf(r.invitation.createdAt)
  })
})

export const makeInvitationArea = (m: MemoryContext<InvitationTables>): MemoryArea<"invitations", InvitationWrites> => ({
  repositories: {
    invitations: {
      getByCode: (code) =>
        m.read(() => {
          for (const tenant of m.tenants()) {
            const found = tenant.invitations.get(code)
            if (found !== undefined) return found
          }
          return undefined
        })
    }
  },
  writes: {
    // Codes are unique service-wide, as the SQL primary key makes them: another platform's code is never taken over.
    putInvitation: (r) =>
      Effect.suspend(() => {
        for (const tenant of m.tenants()) {
          const held = tenant.invitations.get(r.invitation.code)
          if (held !== undefined && held.platformId !== r.platformId) {
            return Effect.die(new Error(`invitation code ${r.invitation.code} belongs to another platform`))
          }
        }
        return Effect.orDie(m.putRow(m.tenantOf(r.platformId).invitations, r.invitation.code, r))
      })
  }
})
