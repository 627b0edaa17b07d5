/**
 * Signed embedded-wallet actions on internal accounts: PATCH /internal-accounts/{id}
 * (wallet privacy), POST /internal-accounts/{id}/export (the wallet's key sealed to the
 * client), and the quote hooks (a wallet source's `payloadToSign`, checked at execute).
 */
import { Clock, Effect } from "effect"
import { sealExportBundle } from "../../crypto/export-bundle.js"
import { generateP256KeyPair } from "../../crypto/generate.js"
import { p256KeyPairFromPrivateKey } from "../../crypto/keys.js"
import { missing } from "../not-found.js"
import type { Platform } from "../../domain/platform.js"
import type { Quote } from "../../domain/quote.js"
import { Store, type UnitOfWork } from "../../ports/store.js"
import { renderOne } from "../money/accounts.js"
import { isoOf } from "../time.js"
import { randomSource, serverKey } from "./auth.js"
import { canonicalJson, type SignedHeaders, signedRequest, verifyQuoteSignature, walletAccount } from "./signed.js"

/** PATCH /internal-accounts/{id}: signed; sets `privateEnabled` on an embedded wallet. */
export const updateInternalAccount = Effect.fnUntraced(function*(
  platform: Platform,
  id: string,
  body: { readonly privateEnabled?: boolean | undefined },
  headers: SignedHeaders
) {
  yield* walletAccount(platform, id)
  return yield* signedRequest({
    platform,
    accountId: id,
    action: "PATCH /internal-accounts/{id}",
    request: { id, ...body },
    perform: (uow) =>
      Effect.gen(function*() {
        const rec = yield* walletAccount(platform, id)
        const now = isoOf(yield* Clock.currentTimeMillis)
        const next = body.privateEnabled === undefined ? rec : { ...rec, privateEnabled: body.privateEnabled, updatedAt: now }
        yield* uow.putInternalAccount(next).pipe(Effect.orDie)
        return yield* renderOne(platform.id, next)
      })
  }, headers)
})

/** The wallet's own key (its exportable credential), made on first export. */
const walletKey = Effect.fnUntraced(function*(uow: UnitOfWork, platform: Platform, accountId: string) {
  const store = yield* Store
  const name = `wallet:${accountId}`
  const existing = yield* store.wallets.get(platform.id, "serverKey", name)
  const pair = existing === undefined ? undefined : p256KeyPairFromPrivateKey(existing.privateKeyHex)
  if (pair !== undefined) return pair
  const made = generateP256KeyPair(yield* randomSource)
  yield* uow.putWalletRecord({ kind: "serverKey", platformId: platform.id, id: name, accountId, privateKeyHex: made.privateKeyHex })
  return made
})

/**
 * POST /internal-accounts/{id}/export: signed; the wallet's private key sealed to
 * `clientPublicKey` (`organizationId` in the bundle: the internal account id). Sandbox
 * bundles carry empty `dataSignature` and `enclaveQuorumPublic`, as the reference says.
 */
export const exportInternalAccount = Effect.fnUntraced(function*(platform: Platform, id: string, body: { readonly clientPublicKey: string }, headers: SignedHeaders) {
  yield* walletAccount(platform, id)
  return yield* signedRequest({
    platform,
    accountId: id,
    action: "POST /internal-accounts/{id}/export",
    request: { id, ...body },
    perform: (uow) =>
      Effect.gen(function*() {
        const key = yield* walletKey(uow, platform, id)
        const signingKey = platform.settings.sandbox ? undefined : yield* serverKey(uow, platform, "export-signing")
        const random = yield* randomSource
        const bundle = yield* Effect.promise(() =>
          sealExportBundle({
            plaintext: hexBytes(key.privateKeyHex),
            clientPublicKey: body.clientPublicKey,
            organizationId: id,
            randomBytes: random,
            signingKey
          })
        )
        return { id, encryptedWalletCredentials: bundle }
      })
  }, headers)
})

const hexBytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, "hex"))

// ---------------------------------------------------------------- quotes

/** The account type of a quote's internal source, or undefined. */
const walletSourceOf = Effect.fnUntraced(function*(platform: Platform, accountId: string) {
  const store = yield* Store
  const rec = yield* store.internalAccounts.get(platform.id, accountId)
  return rec?.type === "EMBEDDED_WALLET" ? rec : undefined
})

/**
 * The payment instructions of a quote whose source is an embedded wallet: what the
 * wallet's session signs to execute it (`Service-Wallet-Signature`, no Request-Id).
 */
export const walletPaymentInstructions = Effect.fnUntraced(function*(
  platform: Platform,
  p: { readonly accountId: string; readonly quoteId: string; readonly amount: number; readonly currency: string; readonly nowMs: number }
) {
  const wallet = yield* walletSourceOf(platform, p.accountId)
  if (wallet === undefined) return undefined
  const payloadToSign = canonicalJson({
    accountId: p.accountId,
    parameters: { amount: p.amount, currency: p.currency, quoteId: p.quoteId },
    timestampMs: String(p.nowMs),
    type: "POST /quotes/{quoteId}/execute"
  })
  return [{
    instructionsNotes: "Sign payloadToSign with a session key of the wallet and send it as Service-Wallet-Signature to POST /quotes/{quoteId}/execute.",
    accountOrWalletInfo: { accountType: "EMBEDDED_WALLET", payloadToSign }
  }]
})

/** At execute: a quote from an embedded wallet needs a stamp over its payloadToSign by an active session. */
export const checkWalletSignature = Effect.fnUntraced(function*(platform: Platform, quote: Quote, signature: string | undefined) {
  const source = quote.source
  if (source.sourceType !== "ACCOUNT") return
  const wallet = yield* walletSourceOf(platform, source.accountId)
  if (wallet === undefined) return
  const info = quote.paymentInstructions?.[0]?.accountOrWalletInfo
  const payload = info?.["payloadToSign"]
  if (typeof payload !== "string") return yield* missing("quote", `Quote ${quote.id} carries no payloadToSign`)
  yield* verifyQuoteSignature(platform, wallet.id, payload, signature)
})
