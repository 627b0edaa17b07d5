/**
 * Delegated signing keys (the reference's `POST /auth/delegated-keys` and `DELETE
 * /auth/delegated-keys/{id}`): the status machine and the one-active-key rule. Pure.
 *
 * PENDING (the first signed retry made the signer, the second has not granted its policy)
 * → ACTIVE (the second signed retry) → REVOKED (`DELETE`). An abandoned PENDING key stays
 * PENDING: it cannot sign, and it blocks nothing.
 */
import type { DelegatedKeyStatus } from "../domain/wallet.js"
import { reject, type Rejection } from "./rejection.js"
import { fail, type Moved, ok, type Result } from "./result.js"

export type DelegatedKeyEvent = { readonly type: "ACTIVATE" } | { readonly type: "REVOKE" }

/** Every allowed move: from -> event -> to. Anything not listed is refused. */
export const DELEGATED_KEY_TRANSITIONS: Readonly<
  Partial<Record<DelegatedKeyStatus, Partial<Record<DelegatedKeyEvent["type"], DelegatedKeyStatus>>>>
> = {
  PENDING: { ACTIVATE: "ACTIVE" },
  ACTIVE: { REVOKE: "REVOKED" }
}

/** A refused REVOKE is INVALID_INPUT (the reference: "already been revoked or is not ACTIVE"); a refused ACTIVATE is CONFLICT. */
export type DelegatedKeyRejection<E extends DelegatedKeyEvent["type"]> = Rejection<E extends "REVOKE" ? "INVALID_INPUT" : "CONFLICT">

const refusal = (status: DelegatedKeyStatus, event: DelegatedKeyEvent["type"]): Rejection<"INVALID_INPUT" | "CONFLICT"> =>
  event === "REVOKE"
    ? reject(
      "INVALID_INPUT",
      status === "REVOKED" ? "The delegated key is already REVOKED" : `The delegated key is ${status}: only an ACTIVE delegated key can be revoked`,
      { status }
    )
    : reject("CONFLICT", `A ${status} delegated key cannot be activated`, { status })

/** One move of a key's status; a key's moves announce and schedule nothing. */
export const transition = <E extends DelegatedKeyEvent["type"]>(
  status: DelegatedKeyStatus,
  event: E
): Result<Moved<DelegatedKeyStatus>, DelegatedKeyRejection<E>> => {
  const to = DELEGATED_KEY_TRANSITIONS[status]?.[event]
  return to === undefined
    ? fail(refusal(status, event) as DelegatedKeyRejection<E>)
    : ok({ state: to, events: [], scheduled: [] })
}

/** `DELETE /auth/delegated-keys/{id}`: only an ACTIVE key. */
export const revoke = (status: DelegatedKeyStatus) => transition(status, "REVOKE")

/** The create flow's last leg: only a PENDING key (the flow cannot reach another: each challenge is good for one retry). */
export const activate = (status: DelegatedKeyStatus) => transition(status, "ACTIVATE")

/**
 * At most one ACTIVE delegated key per card funding source: the conflict a new key
 * (or the activation of one) meets, given the funding source's keys. PENDING and
 * REVOKED keys do not count.
 */
export const activeKeyConflict = (
  fundingSourceId: string,
  keys: ReadonlyArray<{ readonly id: string; readonly status: DelegatedKeyStatus }>
): Rejection<"CONFLICT"> | undefined => {
  const active = keys.find((k) => k.status === "ACTIVE")
  if (active === undefined) return undefined
  return reject(
    "CONFLICT",
    `Card funding source ${fundingSourceId} already has an ACTIVE delegated key (${active.id}); revoke it with DELETE /auth/delegated-keys/{id} first`,
    { delegatedKeyId: active.id }
  )
}
