import { implement } from "../concerns.js"
import { InvitationsGroup } from "../groups/invitations.js"
import * as Invitations from "../../operations/invitations.js"
import { run } from "./run.js"

export const InvitationsHandlers = implement(InvitationsGroup, (handlers) =>
  handlers
    .handle("createInvitation", ({ payload }) => run((p) => Invitations.createInvitation(p, payload)))
    .handle("getInvitation", ({ params }) => run((p) => Invitations.getInvitation(p, params.invitationCode)))
    .handle("claimInvitation", ({ params, payload }) => run((p) => Invitations.claimInvitation(p, params.invitationCode, payload)))
    .handle("cancelInvitation", ({ params }) => run((p) => Invitations.cancelInvitation(p, params.invitationCode))))
