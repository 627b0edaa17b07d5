/**
 * UMA invitations: POST /invitations (a customer invites someone by link),
 * GET /invitations/{invitationCode}, POST .../claim (any platform holding the code),
 * POST .../cancel (the creating platform only).
 */
import { HttpApiEndpoint, HttpApiSchema, OpenApi } from "effect/http-api"
import { TextUpTo } from "../../domain/common.js"
import { Error403, Error404 } from "../../domain/errors.js"
import { MAX_INVITATION_CODE_LENGTH, UmaInvitation, UmaInvitationClaimRequest, UmaInvitationCreateRequest } from "../../domain/invitation.js"
import { declare } from "../declarations.js"
import { apiGroup } from "../endpoints.js"

const codeParams = { invitationCode: TextUpTo(MAX_INVITATION_CODE_LENGTH) }

export class InvitationsGroup extends apiGroup("invitations", { title: "Invitations", permission: "MANAGE" },
  HttpApiEndpoint.post("createInvitation", "/invitations", {
    payload: UmaInvitationCreateRequest,
    success: UmaInvitation.pipe(HttpApiSchema.status(201))
  }).annotate(OpenApi.Description, "Create an UMA invitation from a customer of the platform (`inviterUma` is the customer's UMA address)."),
  HttpApiEndpoint.get("getInvitation", "/invitations/:invitationCode", {
    params: codeParams,
    success: UmaInvitation,
    error: Error404
  }).annotate(
    OpenApi.Description,
    "An invitation by its code, from any platform (the code is shared by link). `status` is EXPIRED once `expiresAt` has passed on the creating platform's clock."
  ),
  HttpApiEndpoint.post("claimInvitation", "/invitations/:invitationCode/claim", {
    params: codeParams,
    payload: UmaInvitationClaimRequest,
    success: UmaInvitation,
    error: Error404
  }).annotate(
    OpenApi.Description,
    "PENDING to CLAIMED with the invitee's UMA address; INVITATION.CLAIMED goes to the creating platform. A claimed, cancelled or expired invitation: 400 INVITATION_ALREADY_CLAIMED, INVITATION_CANCELLED, EXPIRED."
  ),
  HttpApiEndpoint.post("cancelInvitation", "/invitations/:invitationCode/cancel", {
    params: codeParams,
    success: UmaInvitation,
    error: [Error403, Error404]
  }).annotate(OpenApi.Description, "PENDING to CANCELLED; only the creating platform (403 otherwise); a claimed, cancelled or expired invitation: 400.")
) {}
