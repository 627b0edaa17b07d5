/**
 * Authorization headers that already passed the full HTTP Basic check, per app. The
 * PlatformAuth middleware fills it; it and the direct lane read it, so steady traffic
 * skips base64 and hashing. Only valid headers are remembered, and the map is bounded:
 * junk traffic cannot grow it.
 *
 * Only the platforms file's credentials are remembered, never an API token's
 * (docs/tokens.md): a token is read from the store on every request, so deleting it in
 * any process refuses its next request everywhere, and the direct lane (which serves only
 * remembered headers) never serves a token.
 */
import { Context, Layer } from "effect"
import type { Platform } from "../domain/platform.js"
import { BoundedMemo } from "../lib/bounded-memo.js"

/** How many distinct valid Authorization headers are remembered (per app). */
export const VERIFIED_CREDENTIALS_SIZE = 256

export class VerifiedCredentials extends Context.Service<VerifiedCredentials, {
  /** The platform a header was verified for, if it was. */
  readonly get: (header: string) => Platform | undefined
  /** Remembers a header that passed the full check. */
  readonly remember: (header: string, platform: Platform) => void
  /**
   * Records the platform one request (its server-side source object: the web `Request`
   * or node's `IncomingMessage`) was authenticated for, however it was: the platforms
   * file's credentials, an API token, or an agent's bearer token. The request log reads
   * it (held weakly: it goes with the request).
   */
  readonly attribute: (source: object, platform: Platform) => void
  /** The platform a request was authenticated for, if it was. */
  readonly attributed: (source: object) => Platform | undefined
}>()("payments-service/http/VerifiedCredentials") {
  static readonly make = (size = VERIFIED_CREDENTIALS_SIZE) => {
    // At least one (as before: a size of 0 or less kept the last header only).
    const verified = new BoundedMemo<string, Platform>(Math.max(1, Math.floor(size)))
    const requests = new WeakMap<object, Platform>()
    return VerifiedCredentials.of({
      attribute: (source, platform) => {
        requests.set(source, platform)
      },
      attributed: (source) => requests.get(source),
      get: (header) => verified.get(header),
      remember: (header, platform) => {
        verified.set(header, platform)
      }
    })
  }

  static readonly layer = Layer.sync(VerifiedCredentials, () => VerifiedCredentials.make())
}
