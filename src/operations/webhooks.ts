/**
 * Webhook delivery from the outbox (docs/webhooks.md).
 *
 * - A worker takes each platform's committed events after its cursor into deliveries,
 *   while the platform has an endpoint (events committed before one is set are not
 *   delivered), then attempts the due ones: outbox order per resource (an event waits
 *   while an earlier one about the same resource is still PENDING).
 * - An attempt is claimed with a lease in one unit of work, POSTed outside any
 *   transaction, and its result written in a second unit of work (only by the lease
 *   holder). A process that dies mid-attempt leaves a lease that expires, and the
 *   attempt is made again: at least once.
 * - A 2xx or a 409 (the receiver has it already) is delivered; anything else is retried
 *   on the platform's clock with exponential backoff and a jitter derived from the
 *   delivery id, `MAX_ATTEMPTS` attempts in all, then FAILED.
 * - Bodies are signed with the platform's P-256 key (created on first use).
 * - The answer to an `INCOMING_PAYMENT.PENDING` webhook decides a payment waiting for it
 *   (money/incoming-approval.ts), in the unit of work that records the attempt; 403 and
 *   422 end that delivery too.
 */
import { createHash, randomUUID } from "node:crypto"
import { Cause, Clock, Deferred, Effect, Exit, Fiber, Semaphore } from "effect"
import { p256KeyPairFromPrivateKey } from "../crypto/keys.js"
import { type SignatureNonce, signWebhookBody, WEBHOOK_SIGNATURE_HEADER } from "../crypto/webhook-signature.js"
import { badRequest, forbidden } from "../domain/errors.js"
import { type DomainEvent, webhookBodyOf } from "../domain/events.js"
import { isDeterministic, type Platform } from "../domain/platform.js"
import type { PlatformConfig } from "../domain/platform-config.js"
import type { TestWebhookResponse, WebhookDelivery, WebhookPublicKey } from "../domain/webhook.js"
import { Ids } from "../ports/ids.js"
import { Platforms } from "../ports/platforms.js"
import { Store, type WebhookAttemptRecord, type WebhookDeliveryRecord } from "../ports/store.js"
import { WebhookSender, type WebhookResponse } from "../ports/webhooks.js"
import { isApprovalAnswerStatus } from "../rules/money/incoming-approval.js"
import { configOf } from "./money/config.js"
import { answerIncomingPending } from "./money/incoming-approval.js"
import { pageOf, type PageQuery, pageRequestOf } from "./paging.js"
import { sendWithFaults } from "./sandbox-faults.js"
import { asPlatformWork, isoOf, onClockAt, platformNowOf } from "./time.js"
import { eventOf } from "./transition.js"
import { missing } from "./not-found.js"

// ---------------------------------------------------------------- the schedule

/** Attempts in all (the first and 7 retries), then FAILED. */
export const MAX_ATTEMPTS = 8
/** The delay after the first failed attempt; each next one is 3 times longer, up to `MAX_RETRY_DELAY_MILLIS`. */
export const FIRST_RETRY_DELAY_MILLIS = 60_000
export const MAX_RETRY_DELAY_MILLIS = 12 * 3_600_000
/** Jitter: each delay is lengthened by up to this fraction, derived from the delivery id. */
export const RETRY_JITTER = 0.2
/** How long a claimed attempt is leased (real time): longer than the sender's timeout. */
export const LEASE_MILLIS = 15_000
/** Events taken from the outbox per unit of work. */
const IMPORT_BATCH = 200
/** Attempts one pass makes per platform at most (the rest wait for the next pass). */
export const MAX_ATTEMPTS_PER_PASS = 500
/**
 * Attempts claimed (and recorded) together, sent side by side: a batch costs two units of
 * work whatever its size. Each of a pass's `CLAIMING_WORKERS` has a batch in flight, so at
 * most `CLAIM_BATCH * CLAIMING_WORKERS` attempts of a platform are (different resources).
 */
const CLAIM_BATCH = 8
const CLAIMING_WORKERS = 2
/** How long a sandbox clock advance (or a redelivery) waits for the attempts it starts; the rest finish in the background. */
export const DELIVERY_WAIT_MILLIS = 10_000
/** Attempts kept per delivery in the log (the oldest are dropped). */
const ATTEMPT_HISTORY = 20

/**
 * The delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed:
 * 60 s × 3^(attempt−1), at most 12 h, lengthened by a jitter in [0, 20 %) that is a
 * function of the delivery id and the attempt (no randomness: the same delivery
 * retries on the same schedule).
 */
export const retryDelayMillis = (deliveryId: string, attempt: number): number => {
  const base = Math.min(FIRST_RETRY_DELAY_MILLIS * 3 ** (attempt - 1), MAX_RETRY_DELAY_MILLIS)
  const digest = createHash("sha256").update(`${deliveryId}:${attempt}`).digest()
  const fraction = digest.readUInt32BE(0) / 0x1_0000_0000
  return Math.round(base * (1 + RETRY_JITTER * fraction))
}

/** A receiver's answer that ends the delivery: any 2xx, or 409 (it has processed this id already). */
export const isAcknowledged = (status: number): boolean => (status >= 200 && status < 300) || status === 409

// ---------------------------------------------------------------- signing key

/** The platform's signing key: created on first use from the Ids port's randomness, stored, then always the same. */
export const signingKeyOf = Effect.fnUntraced(function*(platform: Platform) {
  const store = yield* Store
  const stored = yield* store.webhooks.signingKey(platform.id)
  if (stored !== undefined) return stored
  const ids = yield* Ids
  let pair = undefined as ReturnType<typeof p256KeyPairFromPrivateKey>
  while (pair === undefined) {
    // Two random UUIDs (244 random bits) hashed to a scalar; redrawn in the ~2^-32 case it is out of range.
    const seed = `${yield* ids.uuid}:${yield* ids.uuid}`
    pair = p256KeyPairFromPrivateKey(createHash("sha256").update(seed).digest("hex"))
  }
  const createdAt = yield* Clock.currentTimeMillis
  const candidate = { platformId: platform.id, privateKeyHex: pair.privateKeyHex, publicKeyHex: pair.publicKeyHex, createdAt }
  return yield* store.transact((uow) => uow.putWebhookSigningKey(candidate))
})

export const webhookPublicKeyOf = Effect.fnUntraced(function*(platform: Platform) {
  const key = yield* signingKeyOf(platform)
  const view: WebhookPublicKey = {
    publicKey: key.publicKeyHex,
    algorithm: "ECDSA_P256_SHA256",
    header: WEBHOOK_SIGNATURE_HEADER,
    signatureEncoding: "BASE64_DER"
  }
  return view
})

/** GET /config (and PATCH's answer): the configuration with the webhook public key. */
export const withWebhookPublicKey = <E, R>(platform: Platform, config: Effect.Effect<PlatformConfig, E, R>) =>
  Effect.gen(function*() {
    const c = yield* config
    const key = yield* signingKeyOf(platform)
    return { ...c, webhookPublicKey: key.publicKeyHex }
  })

// ---------------------------------------------------------------- import

const resourceIdOf = (event: DomainEvent): string => {
  const data: unknown = "data" in event ? event.data : undefined
  if (typeof data === "object" && data !== null && "id" in data && typeof data.id === "string") return data.id
  return event.id
}

/**
 * Takes at most `IMPORT_BATCH` of the platform's committed events after its cursor into
 * deliveries (one unit of work, the deliveries added in one write), while an endpoint is
 * configured. Returns how many were taken: `IMPORT_BATCH` when more may be waiting. One
 * batch at a time, so that a pass makes attempts between batches (`runDueWebhooks`): an
 * import that ran until it caught up made no attempt while the load outran it.
 */
export const importEvents = Effect.fnUntraced(function*(platform: Platform, now: number) {
  const store = yield* Store
  const config = yield* configOf(platform)
  if (config.webhookEndpoint === undefined) return 0
  return yield* store.transact((uow) =>
    Effect.gen(function*() {
      const cursor = (yield* store.webhooks.cursor(platform.id)) ?? 0
      const events = yield* store.events.list(platform.id, { afterSeq: cursor, limit: IMPORT_BATCH })
      const last = events.at(-1)
      if (last === undefined) return 0
      yield* uow.addWebhookDeliveries(events.map(({ seq, event }): WebhookDeliveryRecord => {
        const happened = Date.parse(event.timestamp)
        return {
          platformId: platform.id,
          id: event.id,
          seq,
          type: event.type,
          resourceId: resourceIdOf(event),
          body: webhookBodyOf(event),
          status: "PENDING",
          attempts: [],
          round: 0,
          // First attempt as the event happens (a sandbox advance replays it then).
          nextAttemptAt: Number.isFinite(happened) ? Math.min(happened, now) : now,
          createdAt: now,
          updatedAt: now
        }
      }))
      yield* uow.setWebhookCursor(platform.id, last.seq)
      return events.length
    })
  )
})

// ---------------------------------------------------------------- attempts

const signedRequest = (platform: Platform, url: string, body: string, privateKeyHex: string, nonce: SignatureNonce) => ({
  url,
  body,
  platform,
  headers: {
    "content-type": "application/json",
    "user-agent": "payments-service-webhooks",
    [WEBHOOK_SIGNATURE_HEADER]: signWebhookBody(body, privateKeyHex, nonce)
  }
})

/**
 * The nonce of the platform's webhook signatures: RFC 6979 where a run must repeat byte for
 * byte (a deterministic platform, or ids drawn from a seed: docs/sandbox.md), a random one
 * (signed natively, a few dozen times cheaper) elsewhere (docs/webhooks.md).
 */
const signatureNonceOf = Effect.fnUntraced(function*(platform: Platform) {
  const ids = yield* Ids
  const nonce: SignatureNonce = isDeterministic(platform) || ids.seeded ? "rfc6979" : "random"
  return nonce
})

const attemptOf = (at: number, url: string, response: WebhookResponse): WebhookAttemptRecord =>
  response._tag === "Answered"
    ? { at, url, durationMs: response.durationMs, statusCode: response.status }
    : { at, url, durationMs: response.durationMs, error: response.error }

/** The webhook whose answer decides an incoming payment on an approval-mechanism rail (docs/webhooks.md). */
const APPROVAL_WEBHOOK = "INCOMING_PAYMENT.PENDING"

/** The delivery after an attempt at `at`. A 403 or 422 answer to the approval webhook is an answer too: delivered. */
export const afterAttempt = (d: WebhookDeliveryRecord, attempt: WebhookAttemptRecord): WebhookDeliveryRecord => {
  const attempts = [...d.attempts, attempt].slice(-ATTEMPT_HISTORY)
  const round = d.round + 1
  const base = { ...d, attempts, round, updatedAt: attempt.at, lease: undefined }
  const status = attempt.statusCode
  if (status !== undefined && (isAcknowledged(status) || (d.type === APPROVAL_WEBHOOK && isApprovalAnswerStatus(status)))) {
    return { ...base, status: "DELIVERED" }
  }
  if (round >= MAX_ATTEMPTS) return { ...base, status: "FAILED" }
  return { ...base, status: "PENDING", nextAttemptAt: attempt.at + retryDelayMillis(d.id, round) }
}

/**
 * Claims up to `limit` due attempts of the platform (different resources), makes them side
 * by side and records them: one unit of work leases them all, and one records them all.
 * `replay`: each attempt is recorded at the time it fell due (a sandbox advance catching
 * up), else at `now`. Returns how many were made.
 */
const attemptBatch = (platform: Platform, now: number, leaseNow: number, replay: boolean, limit: number) =>
  Effect.gen(function*() {
    const store = yield* Store
    // The lease token is internal (never in an answer or a webhook): it does not draw from
    // the Ids stream, so background passes leave a deterministic run's ids alone.
    const token = randomUUID()
    const claimed = yield* store.transact((uow) =>
      Effect.gen(function*() {
        const due = yield* store.webhooks.claimDue(platform.id, now, leaseNow, limit)
        const leased = due.map((d) => ({ ...d, lease: { token, until: leaseNow + LEASE_MILLIS } }))
        yield* uow.putWebhookDeliveries(leased)
        return leased
      })
    )
    if (claimed.length === 0) return 0
    const endpoint = (yield* configOf(platform)).webhookEndpoint
    const key = endpoint === undefined ? undefined : yield* signingKeyOf(platform)
    const nonce = yield* signatureNonceOf(platform)
    const made = yield* Effect.forEach(claimed, (d) =>
      Effect.gen(function*() {
        const at = replay ? d.nextAttemptAt : now
        if (endpoint === undefined || key === undefined) {
          return { d, at, response: undefined, attempt: { at, url: "", durationMs: 0, error: "no webhook endpoint is configured" } }
        }
        // Through the platform's sandbox webhook faults, if it has any (docs/sandbox.md#fault-injection).
        const response = yield* sendWithFaults(platform, d, signedRequest(platform, endpoint, d.body, key.privateKeyHex, nonce))
        return { d, at, response, attempt: attemptOf(at, endpoint, response) }
      }), { concurrency: "unbounded" })
    // Recorded in one unit of work; an approval webhook in one of its own, with the payment
    // its answer decides (a failure there leaves the others' records alone).
    const record = (attempts: ReadonlyArray<(typeof made)[number]>) =>
      attempts.length === 0 ? Effect.void : store.transact((uow) =>
        Effect.gen(function*() {
          const current = new Map((yield* store.webhooks.getMany(platform.id, attempts.map((a) => a.d.id))).map((d) => [d.id, d]))
          const recorded: Array<{ readonly current: WebhookDeliveryRecord; readonly next: WebhookDeliveryRecord; readonly at: number; readonly response: WebhookResponse | undefined }> = []
          for (const { d, at, response, attempt } of attempts) {
            const stored = current.get(d.id)
            // Someone else took over after the lease expired (or a reset removed it): theirs counts.
            if (stored?.lease?.token !== token) continue
            recorded.push({ current: stored, next: afterAttempt(stored, attempt), at, response })
          }
          yield* uow.putWebhookDeliveries(recorded.map((r) => r.next))
          // The receiver's answer decides a payment waiting for it, with the attempt, at its time.
          for (const r of recorded) {
            if (r.current.type === APPROVAL_WEBHOOK) {
              yield* onClockAt(answerIncomingPending(uow, platform, r.current.resourceId, r.at, r.response, r.next.status), r.at)
            }
          }
        })
      )
    yield* record(made.filter((a) => a.d.type !== APPROVAL_WEBHOOK))
    for (const a of made) if (a.d.type === APPROVAL_WEBHOOK) yield* record([a])
    return claimed.length
  })

/**
 * Imports the platform's new events and makes every attempt due at `now` (epoch ms on
 * the platform's clock; `leaseNow` real time), a few resources at once. Returns how many
 * attempts were made.
 */
export const runDueWebhooks = Effect.fnUntraced(function*(platform: Platform, now: number, leaseNow: number, replay = false) {
  let made = 0
  // Attempts claimed or made: a worker claims no more than the pass has left.
  let taken = 0
  // Batches in flight, batches that made attempts, and a signal completed (and replaced)
  // whenever a batch ends. A resource's next delivery becomes due only when its previous one
  // is recorded, so a worker that finds nothing while others have batches out waits for one
  // of them to make attempts, rather than giving up (or claiming again and again).
  let inFlight = 0
  let progress = 0
  let batchEnded = Deferred.makeUnsafe<void>()
  const endBatch = (madeSome: boolean) => {
    inFlight--
    if (madeSome) progress++
    const ended = batchEnded
    batchEnded = Deferred.makeUnsafe<void>()
    Deferred.doneUnsafe(ended, Effect.void)
  }
  const worker = Effect.gen(function*() {
    while (taken < MAX_ATTEMPTS_PER_PASS) {
      const want = Math.min(CLAIM_BATCH, MAX_ATTEMPTS_PER_PASS - taken)
      taken += want
      inFlight++
      const progressBefore = progress
      const n = yield* attemptBatch(platform, now, leaseNow, replay, want).pipe(
        Effect.onExit((exit) => Effect.sync(() => endBatch(Exit.isSuccess(exit) && exit.value > 0)))
      )
      taken -= want - n
      made += n
      if (n > 0) continue
      // Found nothing: again once another batch has made attempts (maybe meanwhile), done
      // when none has and none is out.
      while (progress === progressBefore && inFlight > 0) yield* Deferred.await(batchEnded)
      if (progress === progressBefore) return
    }
  })
  // A batch of events, then the attempts due; again while the import found a whole batch
  // (more may be waiting) or attempts were made (an answer may have committed events, an
  // approved incoming payment's COMPLETED, which go out in the same pass).
  for (;;) {
    const before = made
    const imported = yield* importEvents(platform, now)
    yield* Effect.forEach(Array.from({ length: CLAIMING_WORKERS }), () => worker, { concurrency: CLAIMING_WORKERS, discard: true })
    if (made >= MAX_ATTEMPTS_PER_PASS || (made === before && imported < IMPORT_BATCH)) return made
  }
})

/**
 * One pass at a time per platform in this process (the background loop, a sandbox
 * advance, a redelivery, a new endpoint's kick take turns), so a pass that waits for
 * what is due sees every attempt of this process finished. Other processes are kept
 * apart by the leases.
 */
const passLocks = new Map<string, Semaphore.Semaphore>()
const passLockOf = (platformId: string): Semaphore.Semaphore => {
  let lock = passLocks.get(platformId)
  if (lock === undefined) passLocks.set(platformId, lock = Semaphore.makeUnsafe(1))
  return lock
}

/** One pass for one platform on its own clock, from the base clock (leases on the base clock). */
const passFor = (platform: Platform, replay: boolean) =>
  Semaphore.withPermit(
    passLockOf(platform.id),
    asPlatformWork(
      platform,
      Effect.gen(function*() {
        const base = yield* Clock.currentTimeMillis
        const now = yield* platformNowOf(platform)
        return yield* runDueWebhooks(platform, now, base, replay)
      })
    )
  )

/**
 * Every platform's due webhooks: one pass of the background worker (platforms side by
 * side). A deterministic platform's webhooks go out when its requests send them (see
 * `runAllDueTimers`): an answer to a webhook can make a move that draws ids. Answers
 * whether a platform's pass stopped at `MAX_ATTEMPTS_PER_PASS`, leaving attempts due.
 */
export const runAllDueWebhooks = Effect.gen(function*() {
  const platforms = yield* Platforms
  const made = yield* Effect.forEach(
    (yield* platforms.all).filter((platform) => !isDeterministic(platform)),
    (platform) => passFor(platform, false).pipe(Effect.catchCause((cause) => Effect.as(Effect.logWarning(`Webhook pass for ${platform.id} failed`, cause), 0))),
    { concurrency: 8 }
  )
  return made.some((n) => n >= MAX_ATTEMPTS_PER_PASS)
})

/**
 * The background webhook worker, for ever: a pass, then the next after `intervalMillis`
 * of real time, or at once when a pass stopped at its cap with attempts still due (a
 * backlog drains as fast as the process sends, not `MAX_ATTEMPTS_PER_PASS` per interval;
 * every attempt awaits its answer, so requests keep their turns). Failures are logged,
 * not fatal.
 */
export const webhookLoop = (intervalMillis: number) =>
  runAllDueWebhooks.pipe(
    Effect.catchCause((cause) => Effect.as(Effect.logWarning("Webhook pass failed; retrying on the next pass", cause), false)),
    Effect.flatMap((more) => (more ? Effect.yieldNow : Effect.sleep(intervalMillis))),
    Effect.forever
  )

/**
 * Runs the platform's due webhooks in a fiber of their own (never the caller's) and
 * waits for them at most `DELIVERY_WAIT_MILLIS`; what is not done by then finishes in
 * the background. Run from the base clock. `replay`: attempts happen at their due times.
 */
export const deliverDueWebhooks = (platform: Platform, options: { readonly replay: boolean; readonly wait: boolean }) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkDetach({ startImmediately: true })(
      passFor(platform, options.replay).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.succeed(0) : Effect.as(Effect.logWarning(`Webhook delivery for ${platform.id} failed`, cause), 0)
        )
      )
    )
    if (options.wait) yield* Effect.timeoutOption(Fiber.join(fiber), DELIVERY_WAIT_MILLIS)
  })

// ---------------------------------------------------------------- the API

const sandboxOnly = (platform: Platform) =>
  platform.settings.sandbox ? Effect.void : Effect.fail(forbidden("Sandbox endpoints are not available to production platforms"))

const excerpt = (text: string) => (text.length > 500 ? `${text.slice(0, 500)}…` : text)

/**
 * POST /sandbox/webhooks/test: sends one signed `TEST` webhook now and answers what the
 * receiver said. Not retried and not in the delivery log.
 */
export const sendTestWebhook = Effect.fnUntraced(function*(platform: Platform) {
  yield* sandboxOnly(platform)
  const endpoint = (yield* configOf(platform)).webhookEndpoint
  if (endpoint === undefined) {
    return yield* badRequest("WEBHOOK_ENDPOINT_NOT_SET", "No webhook endpoint is configured; set webhookEndpoint with PATCH /config")
  }
  const now = yield* platformNowOf(platform)
  const event = yield* eventOf(platform, "TEST", { timestamp: isoOf(now) })
  const key = yield* signingKeyOf(platform)
  const sender = yield* WebhookSender
  const response = yield* sender.send(signedRequest(platform, endpoint, webhookBodyOf(event), key.privateKeyHex, yield* signatureNonceOf(platform)))
  if (response._tag === "Failed") {
    return yield* badRequest("WEBHOOK_DELIVERY_ERROR", `The webhook could not be delivered to ${endpoint}: ${response.error}`, {
      details: { url: endpoint }
    })
  }
  if (response.status < 200 || response.status > 299) {
    return yield* badRequest(
      "WEBHOOK_DELIVERY_ERROR",
      `The webhook endpoint ${endpoint} answered ${response.status}${response.body === "" ? "" : `: ${excerpt(response.body)}`}`,
      { details: { url: endpoint, responseStatus: response.status } }
    )
  }
  const answer: TestWebhookResponse = { url: endpoint, response_status: response.status, response_body: response.body }
  return answer
})

export const deliveryView = (d: WebhookDeliveryRecord): WebhookDelivery => ({
  id: d.id,
  type: d.type as WebhookDelivery["type"],
  resourceId: d.resourceId,
  status: d.status,
  attempts: d.attempts.map((a) => ({
    at: isoOf(a.at),
    url: a.url,
    durationMs: a.durationMs,
    ...(a.statusCode === undefined ? {} : { statusCode: a.statusCode }),
    ...(a.error === undefined ? {} : { error: a.error })
  })),
  ...(d.status === "PENDING" ? { nextAttemptAt: isoOf(d.nextAttemptAt) } : {}),
  createdAt: isoOf(d.createdAt),
  updatedAt: isoOf(d.updatedAt)
})

/** GET /sandbox/webhooks/deliveries: the platform's deliveries, newest first, with their attempts. */
export const listWebhookDeliveries = Effect.fnUntraced(function*(
  platform: Platform,
  query: PageQuery
) {
  yield* sandboxOnly(platform)
  const store = yield* Store
  const result = yield* pageOf(store.webhooks.list(platform.id, pageRequestOf(query)))
  return { ...result, data: result.data.map(deliveryView) }
})

/**
 * POST /sandbox/webhooks/deliveries/{id}/redeliver: the delivery starts over (PENDING,
 * due now, a fresh retry schedule) and is attempted before the answer (waiting at most
 * `DELIVERY_WAIT_MILLIS`). The webhook keeps its id and body.
 */
export const redeliverWebhook = Effect.fnUntraced(function*(platform: Platform, id: string) {
  yield* sandboxOnly(platform)
  const store = yield* Store
  const now = yield* platformNowOf(platform)
  const found = yield* store.transact((uow) =>
    Effect.gen(function*() {
      const d = yield* store.webhooks.get(platform.id, id)
      if (d === undefined) return false
      yield* uow.putWebhookDeliveries([{ ...d, status: "PENDING", round: 0, nextAttemptAt: now, updatedAt: now, lease: undefined }])
      return true
    })
  )
  if (!found) return yield* missing("webhookDelivery", `Webhook delivery ${id} not found`)
  yield* deliverDueWebhooks(platform, { replay: false, wait: true })
  const after = yield* store.webhooks.get(platform.id, id)
  if (after === undefined) return yield* missing("webhookDelivery", `Webhook delivery ${id} not found`)
  return deliveryView(after)
})
