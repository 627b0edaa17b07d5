/**
 * The invitations part of the SQL Store (migration `11_invitations`): one row per UMA
 * invitation keyed by its code (unique service-wide: an invitation is found by code
 * alone), with the creating platform as a column for `resetPlatform` and for the cancel
 * check, and the record as its JSON document. ./store.ts wires it in.
 */
import { Effect } from "effect"
import type { InvitationRecord, InvitationWrites } from "../../ports/invitations.js"
import { millisOf } from "../cursor.js"
import { documentReads, type Query, type SqlArea } from "./documents.js"

/** The tables of migration `11_invitations` that `resetPlatform` clears. */
export const INVITATION_TABLES: ReadonlyArray<string> = ["invitations"]

export type InvitationStore = SqlArea<"invitations", InvitationWrites>

export const makeInvitationStore = (query: Query): InvitationStore => {
  const { one } = documentReads(query)
  return {
    tables: INVITATION_TABLES,
    writes: {
      // A code another platform holds is never overwritten: the update applies only to
      // the same platform's row, and no row back means the code was taken (a defect:
      // codes carry 64 random bits).
      putInvitation: (r: InvitationRecord) =>
        Effect.flatMap(
          query<{ code: string }>(
            `insert into invitations (code, platform_id, created_ms, status, doc)
             values ($1, $2, $3::bigint, $4, $5::jsonb)
             on conflict (code) do update set status = excluded.status, doc = excluded.doc
               where invitations.platform_id = excluded.platform_id
             returning code`,
            [r.invitation.code, r.platformId, millisOf(r.invitation.createdAt), r.invitation.status, JSON.stringify(r)]
          ),
          (rows) => rows.length === 1 ? Effect.void : Effect.die(new Error(`invitation code ${r.invitation.code} belongs to another platform`))
        )
    },
    repositories: {
      invitations: {
        getByCode: (code) => one<InvitationRecord>(`select doc::text as doc from invitations where code = $1`, [code])
      }
    }
  }
}
