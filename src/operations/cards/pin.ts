/**
 * A card's PIN and its digital-wallet provisioning (SPEC.md; the reference file has none
 * of these endpoints, so their shapes are ours: docs/cards.md, docs/decisions.md):
 *
 * - GET /cards/{id}/set-pin-url: a short-lived URL of the secure PIN-entry iframe; the
 *   platform's `cardConfigs.pinTargetOrigin` (PATCH /config) must be configured first;
 * - POST /cards/{id}/set-pin: an encrypted PIN block sets (or replaces) the PIN;
 * - POST /cards/{id}/pin/unblock: clears a BLOCKED PIN without changing it;
 * - POST /sandbox/cards/{id}/pin-entry (ours, sandbox): a PIN typed at a terminal, so
 *   that three incorrect entries can block a PIN in the sandbox;
 * - POST /cards/{id}/tokenize: the wallet SDK's values in, an encrypted provisioning
 *   payload out.
 * A change of the saved PIN status fires CARD.PIN_STATUS_CHANGE (rules/cards/pin.ts).
 */
import { p256 } from "@noble/curves/nist.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Effect } from "effect"
import type {
  Card,
  CardSetPinRequest,
  CardSetPinUrlResponse,
  CardTokenizeRequest,
  CardTokenizeResponse,
  SandboxCardPinEntryResponse
} from "../../domain/card.js"
import { type Error400, type Error404, type Error409, type Error501, forbidden, invalidInput } from "../../domain/errors.js"
import type { FieldError } from "../../domain/errors.js"
import type { Platform } from "../../domain/platform.js"
import { Ids } from "../../ports/ids.js"
import { type CardRecord, Store } from "../../ports/store.js"
import { type PinEvent, type PinState, transition as pinTransition } from "../../rules/cards/pin.js"
import { transition as cardTransition } from "../../rules/cards/status.js"
import { conflictIsDefect } from "../paging.js"
import { fromResult } from "../rejection.js"
import { isoOf, nowIso, nowMillis } from "../time.js"
import { cardOf, requireCardIssuer, REVEAL_EMBED_BASE, REVEAL_TTL_MILLIS, writeCard } from "./cards.js"

/** Where the (simulated) PIN-entry iframe lives: beside the reveal iframe, on the reserved `.invalid` host. */
export const SET_PIN_EMBED_BASE = REVEAL_EMBED_BASE.replace(/\/iframe$/, "/set-pin")

const hexOf = (text: string): string => bytesToHex(sha256(new TextEncoder().encode(text)))
const base64Of = (hex: string): string => Buffer.from(hex, "hex").toString("base64")

/** The card, refused (409 CARD_NOT_MUTABLE) once CLOSED: the card machine's answer to any mutation. */
const liveCard = Effect.fnUntraced(function*(platform: Platform, id: string) {
  const rec = yield* cardOf(platform, id)
  yield* fromResult(cardTransition(rec.card.status, { type: "MUTATION" }))
  return rec
})

const pinStateOf = (rec: CardRecord): PinState => ({ pinStatus: rec.card.pinStatus, failures: rec.pinFailures ?? 0 })

/**
 * Applies a PIN move to a card in one unit of work: the PIN machine's new state, the
 * record's fingerprint (`pinBlockSha256`: replaced on PIN_SET) and CARD.PIN_STATUS_CHANGE
 * when the saved status changed. The card's `updatedAt` moves only when its status does.
 */
const movePin = (platform: Platform, id: string, eventOf: (rec: CardRecord) => PinEvent, pinBlockSha256?: string) =>
  Effect.flatMap(Effect.service(Store), (store) =>
    store.transact((uow) =>
      Effect.gen(function*(): Effect.fn.Return<{ readonly card: Card; readonly accepted: boolean; readonly failures: number }, Error404 | Error409, Store | Ids> {
        const rec = yield* liveCard(platform, id)
        const event = eventOf(rec)
        const moved = yield* fromResult(pinTransition(pinStateOf(rec), event))
        const changed = moved.state.pinStatus !== rec.card.pinStatus
        const card: Card = changed || event.type === "PIN_SET"
          ? { ...rec.card, pinStatus: moved.state.pinStatus, updatedAt: yield* nowIso }
          : rec.card
        const next: CardRecord = {
          ...rec,
          card,
          pinFailures: moved.state.failures,
          ...(pinBlockSha256 === undefined ? {} : { pinBlockSha256 })
        }
        yield* writeCard(uow, platform, next, moved.events).pipe(Effect.catchTag("StoreConflict", conflictIsDefect))
        return { card, accepted: moved.accepted, failures: moved.state.failures }
      })
    ))

/** The fingerprint of an encrypted PIN block (case does not matter in hex). */
const pinBlockFingerprint = (platform: Platform, cardId: string, block: string) => hexOf(`${platform.id}\u0000${cardId}\u0000${block.toUpperCase()}`)

// ---------------------------------------------------------------- GET /cards/{id}/set-pin-url

export const setPinUrl = Effect.fnUntraced(function*(platform: Platform, id: string): Effect.fn.Return<
  CardSetPinUrlResponse,
  Error400 | Error404 | Error409 | Error501,
  Store | Ids
> {
  yield* requireCardIssuer(platform)
  const store = yield* Store
  const ids = yield* Ids
  const rec = yield* liveCard(platform, id)
  const origin = (yield* store.platformConfigs.get(platform.id))?.config.cardConfigs?.pinTargetOrigin
  if (origin === undefined) {
    return yield* invalidInput("The platform's cardConfigs.pinTargetOrigin must be configured (PATCH /config) before a PIN can be set through the iframe", [{
      field: "cardConfigs.pinTargetOrigin",
      constraint: "configured",
      message: "is not configured: set it with PATCH /config { cardConfigs: { pinTargetOrigin } }"
    }])
  }
  const expiresAt = (yield* nowMillis) + REVEAL_TTL_MILLIS
  const token = (yield* ids.uuid).replace(/-/g, "")
  return {
    setPinUrl: `${SET_PIN_EMBED_BASE}?card=${encodeURIComponent(rec.card.processorRef)}&t=${token}&targetOrigin=${encodeURIComponent(origin)}&expires=${expiresAt}`,
    targetOrigin: origin,
    expiresAt: isoOf(expiresAt)
  }
})

// ---------------------------------------------------------------- POST /cards/{id}/set-pin, /pin/unblock

export const setPin = (platform: Platform, id: string, req: CardSetPinRequest) =>
  Effect.andThen(
    requireCardIssuer(platform),
    Effect.map(movePin(platform, id, () => ({ type: "PIN_SET" }), pinBlockFingerprint(platform, id, req.encryptedPinBlock)), (r) => r.card)
  )

export const unblockPin = (platform: Platform, id: string) =>
  Effect.andThen(requireCardIssuer(platform), Effect.map(movePin(platform, id, () => ({ type: "PIN_UNBLOCKED" })), (r) => r.card))

// ---------------------------------------------------------------- POST /sandbox/cards/{id}/pin-entry (ours)

export const sandboxPinEntry = (platform: Platform, id: string, req: { readonly encryptedPinBlock: string }) =>
  Effect.andThen(
    platform.settings.sandbox
      ? Effect.void
      : Effect.fail(forbidden("POST /sandbox/cards/{id}/pin-entry is only available to sandbox platforms")),
    Effect.map(
      movePin(platform, id, (rec) => ({
        type: "PIN_ENTERED",
        correct: rec.pinBlockSha256 !== undefined && rec.pinBlockSha256 === pinBlockFingerprint(platform, id, req.encryptedPinBlock)
      })),
      (r): SandboxCardPinEntryResponse => ({ accepted: r.accepted, pinStatus: r.card.pinStatus, consecutiveFailures: r.failures })
    )
  )

// ---------------------------------------------------------------- POST /cards/{id}/tokenize

/** The fields each wallet's in-app provisioning SDK produces. */
const REQUIRED_BY_PROVIDER: Readonly<Record<CardTokenizeRequest["walletProvider"], ReadonlyArray<keyof CardTokenizeRequest>>> = {
  APPLE_PAY: ["certificates", "nonce", "nonceSignature"],
  GOOGLE_PAY: ["deviceId", "walletAccountId"],
  SAMSUNG_PAY: ["deviceId", "walletAccountId"]
}

export const tokenizeCard = Effect.fnUntraced(function*(platform: Platform, id: string, req: CardTokenizeRequest): Effect.fn.Return<
  CardTokenizeResponse,
  Error400 | Error404 | Error409 | Error501,
  Store | Ids
> {
  yield* requireCardIssuer(platform)
  const ids = yield* Ids
  const missing: Array<FieldError> = REQUIRED_BY_PROVIDER[req.walletProvider]
    .filter((field) => req[field] === undefined || (field === "certificates" && req.certificates?.length === 0))
    .map((field) => ({ field, constraint: "required", message: `is required for ${req.walletProvider}` }))
  if (missing.length > 0) {
    return yield* invalidInput(`${req.walletProvider} provisioning needs ${missing.map((m) => m.field).join(", ")}`, missing)
  }
  const rec = yield* liveCard(platform, id)
  if (!rec.card.cardCapabilities.supportsDigitalWalletTokenization) {
    return yield* invalidInput("This card does not support digital-wallet tokenization (cardCapabilities.supportsDigitalWalletTokenization is false)")
  }
  // The sandbox has no issuer to encrypt for the wallet: the payload is random bytes of
  // the right kind (a fresh value every call), and Apple's ephemeral key is a real P-256 key.
  const seed = hexOf(`${rec.card.id}\u0000${yield* ids.uuid}`)
  const expiresAt = (yield* nowMillis) + REVEAL_TTL_MILLIS
  return {
    walletProvider: req.walletProvider,
    encryptedPayload: base64Of(hexOf(`payload:${seed}`) + hexOf(`payload2:${seed}`)),
    activationData: base64Of(hexOf(`activation:${seed}`)),
    ...(req.walletProvider === "APPLE_PAY"
      ? { ephemeralPublicKey: Buffer.from(p256.getPublicKey(sha256(new TextEncoder().encode(`ephemeral:${seed}`)), false)).toString("base64") }
      : {}),
    expiresAt: isoOf(expiresAt)
  }
})
