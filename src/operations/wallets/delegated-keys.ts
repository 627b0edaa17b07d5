/**
 * Delegated signing keys (the reference's `/auth/delegated-keys`; docs/embedded-wallets.md):
 * a custodied P-256 key that signs for a card funding source backed by an embedded
 * wallet, so card payments need no session of the wallet's owner.
 *
 * Creation is a three-leg signed flow through the one signed-request mechanism:
 * 1. no signature headers: the checks run, the key pair is generated (kept with the
 *    challenge, its public key bound into `payloadToSign`) → 202;
 * 2. signed retry: the key is stored PENDING (the signer identity exists, no policy) →
 *    202 with the next challenge (binding the key's id and public key);
 * 3. signed retry: the key becomes ACTIVE → 201 `DelegatedKey`.
 * The checks run on every leg, so a second ACTIVE key for a funding source cannot come
 * about even when two flows race (each leg is one serializable unit of work).
 */
import { Clock, Effect } from "effect"
import { generateP256KeyPair } from "../../crypto/generate.js"
import { p256KeyPairFromPrivateKey } from "../../crypto/keys.js"
import { invalidInput, unauthorized } from "../../domain/errors.js"
import type { Platform } from "../../domain/platform.js"
import type { DelegatedKey, DelegatedKeyCreateRequest } from "../../domain/wallet.js"
import { Ids } from "../../ports/ids.js"
import { type DelegatedKeyRecord, Store, type UnitOfWork, type WalletRequestRecord } from "../../ports/store.js"
import { activate, activeKeyConflict, revoke } from "../../rules/delegated-key.js"
import { rejected } from "../rejection.js"
import { isoOf } from "../time.js"
import { randomSource } from "./auth.js"
import { AnotherLeg, legOf, type SignedHeaders, signedRequest, walletAccount } from "./signed.js"
import { missing } from "../not-found.js"

export const CREATE_DELEGATED_KEY = "POST /auth/delegated-keys"

/** What each signed retry of the create flow authorizes (the `context.activity` of its challenge). */
export const DELEGATED_KEY_ACTIVITIES = {
  /** Leg 2: create the signer identity holding the delegated public key. */
  createSigner: "CREATE_DELEGATED_SIGNER",
  /** Leg 3: grant that signer its signing and self-revocation policy. */
  grantPolicy: "GRANT_DELEGATED_SIGNER_POLICY"
} as const

export const renderDelegatedKey = (k: DelegatedKeyRecord): DelegatedKey => ({
  id: k.id,
  cardId: k.cardId,
  fundingSourceId: k.lookupKey,
  accountId: k.accountId,
  publicKey: k.publicKey,
  nickname: k.nickname,
  status: k.status,
  createdAt: k.createdAt,
  updatedAt: k.updatedAt
})

const byAge = (a: DelegatedKeyRecord, b: DelegatedKeyRecord) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)

/**
 * The card funding source `(cardId, internalAccountId)` names, or 404: no such card, the
 * account does not fund it, or the account is no embedded wallet. A platform without
 * embedded wallets: 409 WALLET_NOT_PROVISIONED, as every signed wallet action.
 */
export const walletFundingSource = Effect.fnUntraced(function*(platform: Platform, cardId: string, internalAccountId: string) {
  const store = yield* Store
  const card = yield* store.cards.get(platform.id, cardId)
  if (card === undefined) return yield* missing("card", `Card ${cardId} not found`)
  const binding = card.fundingSourceBindings.find((b) => b.internalAccountId === internalAccountId)
  if (binding === undefined) {
    return yield* missing("card", `Card funding source not found: internal account ${internalAccountId} is not a funding source of card ${cardId}`)
  }
  const account = yield* store.internalAccounts.get(platform.id, internalAccountId)
  if (account === undefined || account.type !== "EMBEDDED_WALLET") {
    return yield* missing("internalAccount", `Embedded Wallet funding account not found: internal account ${internalAccountId} is not an EMBEDDED_WALLET account`)
  }
  yield* walletAccount(platform, internalAccountId)
  return { cardId: card.card.id, fundingSourceId: binding.id }
})

const keysOfFundingSource = (platform: Platform, fundingSourceId: string) =>
  Effect.flatMap(Effect.service(Store), (store) => store.wallets.byLookup(platform.id, "delegatedKey", fundingSourceId))

/** The one-ACTIVE-key rule for a funding source, as a 409. */
const noActiveKey = Effect.fnUntraced(function*(platform: Platform, fundingSourceId: string) {
  const refused = activeKeyConflict(fundingSourceId, yield* keysOfFundingSource(platform, fundingSourceId))
  if (refused !== undefined) return yield* rejected(refused)
})

/** The pending key a leg-3 challenge names, as leg 2 stored it. */
const pendingKeyOf = Effect.fnUntraced(function*(platform: Platform, id: string | undefined) {
  const store = yield* Store
  const key = id === undefined ? undefined : yield* store.wallets.get(platform.id, "delegatedKey", id)
  if (key === undefined) return yield* unauthorized("The challenge names no pending delegated key; start again")
  return key
})

/** POST /auth/delegated-keys: three legs (202, 202, 201); see the module comment. */
export const createDelegatedKey = Effect.fnUntraced(function*(platform: Platform, body: DelegatedKeyCreateRequest, headers: SignedHeaders) {
  yield* walletFundingSource(platform, body.cardId, body.internalAccountId)
  const check = (_uow: UnitOfWork) =>
    Effect.gen(function*() {
      const now = yield* walletFundingSource(platform, body.cardId, body.internalAccountId)
      yield* noActiveKey(platform, now.fundingSourceId)
    })
  const prepare = (_uow: UnitOfWork) =>
    Effect.gen(function*() {
      const pair = generateP256KeyPair(yield* randomSource)
      return {
        context: { activity: DELEGATED_KEY_ACTIVITIES.createSigner, publicKey: pair.compressedPublicKeyHex },
        kept: { privateKeyHex: pair.privateKeyHex }
      }
    })
  const perform = (uow: UnitOfWork, challenge: WalletRequestRecord) =>
    Effect.gen(function*() {
      const ids = yield* Ids
      const now = isoOf(yield* Clock.currentTimeMillis)
      const source = yield* walletFundingSource(platform, body.cardId, body.internalAccountId)
      if (legOf(challenge) === 2) {
        const pair = p256KeyPairFromPrivateKey(challenge.kept?.["privateKeyHex"] ?? "")
        if (pair === undefined) return yield* unauthorized("The challenge carries no delegated key pair; start again")
        const key: DelegatedKeyRecord = {
          kind: "delegatedKey",
          platformId: platform.id,
          id: yield* ids.make("DelegatedKey"),
          accountId: body.internalAccountId,
          lookupKey: source.fundingSourceId,
          cardId: source.cardId,
          publicKey: pair.compressedPublicKeyHex,
          privateKeyHex: pair.privateKeyHex,
          nickname: body.nickname,
          status: "PENDING",
          createdAt: now,
          updatedAt: now
        }
        yield* uow.putWalletRecord(key)
        return new AnotherLeg({ context: { activity: DELEGATED_KEY_ACTIVITIES.grantPolicy, delegatedKeyId: key.id, publicKey: key.publicKey } })
      }
      const key = yield* pendingKeyOf(platform, challenge.context?.["delegatedKeyId"])
      if (key.lookupKey !== source.fundingSourceId) {
        return yield* missing("card", `Card funding source not found: ${key.lookupKey} no longer binds internal account ${body.internalAccountId} to card ${body.cardId}`)
      }
      const moved = activate(key.status)
      if (!moved.ok) return yield* rejected(moved.error)
      const active: DelegatedKeyRecord = { ...key, status: moved.value.state, updatedAt: now }
      yield* uow.putWalletRecord(active)
      return renderDelegatedKey(active)
    })
  return yield* signedRequest({
    platform,
    accountId: body.internalAccountId,
    action: CREATE_DELEGATED_KEY,
    request: body,
    check,
    prepare,
    perform
  }, headers)
})

/** GET /auth/delegated-keys?accountId=&fundingSourceId= (at least one; both: keys matching both), oldest first. */
export const listDelegatedKeys = Effect.fnUntraced(function*(
  platform: Platform,
  query: { readonly accountId?: string | undefined; readonly fundingSourceId?: string | undefined }
) {
  const store = yield* Store
  const { accountId, fundingSourceId } = query
  if (accountId === undefined && fundingSourceId === undefined) {
    return yield* invalidInput("accountId or fundingSourceId is required", [
      { field: "accountId", constraint: "required", message: "accountId or fundingSourceId is required" },
      { field: "fundingSourceId", constraint: "required", message: "accountId or fundingSourceId is required" }
    ])
  }
  const keys = fundingSourceId !== undefined
    ? (yield* store.wallets.byLookup(platform.id, "delegatedKey", fundingSourceId)).filter((k) => accountId === undefined || k.accountId === accountId)
    : yield* store.wallets.byAccount(platform.id, "delegatedKey", accountId ?? "")
  return { data: [...keys].sort(byAge).map(renderDelegatedKey) }
})

const delegatedKeyOf = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  const key = yield* store.wallets.get(platform.id, "delegatedKey", id)
  if (key === undefined) return yield* missing("delegatedKey", `Delegated key ${id} not found`)
  return key
})

/** GET /auth/delegated-keys/{id}. */
export const getDelegatedKey = Effect.fnUntraced(function*(platform: Platform, id: string) {
  return renderDelegatedKey(yield* delegatedKeyOf(platform, id))
})

/** DELETE /auth/delegated-keys/{id} (platform auth alone): ACTIVE → REVOKED; any other status is 400. */
export const revokeDelegatedKey = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const store = yield* Store
  yield* store.transact((uow) =>
    Effect.gen(function*() {
      const key = yield* delegatedKeyOf(platform, id)
      const moved = revoke(key.status)
      if (!moved.ok) return yield* rejected(moved.error)
      yield* uow.putWalletRecord({ ...key, status: moved.value.state, updatedAt: isoOf(yield* Clock.currentTimeMillis) })
    })
  )
})

/**
 * The ACTIVE delegated key of a card funding source, if any: what may sign card
 * payments from its embedded wallet in place of a session (the reference: until one
 * exists, the funding source cannot fund card transactions).
 */
export const activeDelegatedKey = Effect.fnUntraced(function*(platform: Platform, fundingSourceId: string) {
  const keys = yield* keysOfFundingSource(platform, fundingSourceId)
  return keys.find((k) => k.status === "ACTIVE")
})
