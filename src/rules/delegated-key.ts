/**
 * Delegated signing keys (the reference's `POST /auth/delegated-keys` and `DELETE
 * /auth/delegated-keys/{id}`): the status machine and the one-active-key rule. Pure.
 *
 * PENDING (the first signed retry made the signer, the second has not granted its policy)
 * → ACTIVE (the second signed retry) → REVOKED (`DELETE`). An abandoned PENDING key stays
 * PENDING: it cannot sign, and it blocks nothing.
 */
import { badRequest, conflict, type Error400, type Error409 } from "../domain/errors.js"
import type { DelegatedKeyStatus } from "../domain/wallet.js"
import { fail, ok, type Result } from "./result.js"

export type DelegatedKeyEvent = { readonly type: "ACTIVATE" } | { readonly type: "REVOKE" }

/** Every allowed move: from -> event -> to. Anything not listed is refused. */
export const DELEGATED_KEY_TRANSITIONS: Readonly<
  Partial<Record<DelegatedKeyStatus, Partial<Record<DelegatedKeyEvent["type"], DelegatedKeyStatus>>>>
> = {
  PENDING: { ACTIVATE: "ACTIVE" },
  ACTIVE: { REVOKE: "REVOKED" }
}

const moveOf = (status: DelegatedKeyStatus, event: DelegatedKeyEvent["type"]): DelegatedKeyStatus | undefined =>
  DELEGATED_KEY_TRANSITIONS[status]?.[event]

/** `DELETE /auth/delegated-keys/{id}`: only an ACTIVE key; any other is 400 (the reference: "already been revoked or is not ACTIVE"). */
export const revoke = (status: DelegatedKeyStatus): Result<DelegatedKeyStatus, Error400> => {
  const to = moveOf(status, "REVOKE")
  if (to !== undefined) return ok(to)
  return fail(badRequest(
    "INVALID_INPUT",
    status === "REVOKED" ? "The delegated key is already REVOKED" : `The delegated key is ${status}: only an ACTIVE delegated key can be revoked`,
    { details: { status } }
  ))
}

/** The create flow's last leg: only a PENDING key (the flow cannot reach another: each challenge is good for one retry). */
export const activate = (status: DelegatedKeyStatus): Result<DelegatedKeyStatus, Error409> => {
  const to = moveOf(status, "ACTIVATE")
  if (to !== undefined) return ok(to)
  return fail(conflict("CONFLICT", `A ${status} delegated key cannot be activated`, { details: { status } }))
}

/**
 * At most one ACTIVE delegated key per card funding source: the conflict a new key
 * (or the activation of one) meets, given the funding source's keys. PENDING and
 * REVOKED keys do not count.
 */
export const activeKeyConflict = (
  fundingSourceId: string,
  keys: ReadonlyArray<{ readonly id: string; readonly status: DelegatedKeyStatus }>
): Error409 | undefined => {
  const active = keys.find((k) => k.status === "ACTIVE")
  if (active === undefined) return undefined
  return conflict(
    "CONFLICT",
    `Card funding source ${fundingSourceId} already has an ACTIVE delegated key (${active.id}); revoke it with DELETE /auth/delegated-keys/{id} first`,
    { details: { delegatedKeyId: active.id } }
  )
}
