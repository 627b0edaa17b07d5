/**
 * The webhook events as a typed union, keyed by `type`.
 *
 * `WebhookTypes` is the reference file's `WebhookType` enum (43 values) with SPEC.md's
 * changes, which win (SPEC.md "Events" and "Cards"):
 * - removed: `CARD_TRANSACTION.REFUNDED` (SPEC.md: "CARD_TRANSACTION.REFUNDED is removed");
 * - added: `CARD_TRANSACTION.DECLINED`, `CARD_TRANSACTION.VOIDED`, `CARD.PIN_STATUS_CHANGE`.
 * `VERIFICATION.READY_FOR_VERIFICATION` is kept: it is in the reference `WebhookType`
 * enum even though the reference verification webhook's own enum omits it.
 *
 * A `DomainEvent` is what the outbox holds (it knows its platform); a `WebhookEnvelope`
 * is what goes over the wire (reference `BaseWebhook` + `data`: no `platformId`).
 */
import { BulkCustomerImportJob } from "./bulk-job.js"
import { type Effect, Schema, type SchemaAST } from "effect"
import { Card } from "./card.js"
import { CardTransaction } from "./card-transaction.js"
import { DateTimeString } from "./common.js"
import { CustomerResponse } from "./customer.js"
import { ExternalAccount } from "./external-account.js"
import { AgentAction } from "./agent.js"
import { ResourceId } from "./ids.js"
import { InternalAccount } from "./internal-account.js"
import { UmaInvitation } from "./invitation.js"
import { IncomingTransaction, OutgoingTransaction } from "./transaction.js"
import { Verification } from "./verification.js"

// ---------------------------------------------------------------- types

/** In the reference `WebhookType` enum, removed by SPEC.md. */
export const REMOVED_WEBHOOK_TYPES = ["CARD_TRANSACTION.REFUNDED"] as const

/** Named by SPEC.md, absent from the reference `WebhookType` enum. */
export const ADDED_WEBHOOK_TYPES = [
  "CARD_TRANSACTION.DECLINED",
  "CARD_TRANSACTION.VOIDED",
  "CARD.PIN_STATUS_CHANGE"
] as const

/** Every webhook `type`, in the reference enum's order (SPEC.md additions next to their family). */
export const WebhookTypes = [
  "OUTGOING_PAYMENT.PENDING",
  "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
  "OUTGOING_PAYMENT.PROCESSING",
  "OUTGOING_PAYMENT.COMPLETED",
  "OUTGOING_PAYMENT.FAILED",
  "OUTGOING_PAYMENT.EXPIRED",
  "OUTGOING_PAYMENT.REFUND_PENDING",
  "OUTGOING_PAYMENT.REFUND_COMPLETED",
  "OUTGOING_PAYMENT.REFUND_FAILED",
  "INCOMING_PAYMENT.PENDING",
  "INCOMING_PAYMENT.COMPLETED",
  "INCOMING_PAYMENT.FAILED",
  "INCOMING_PAYMENT.REFUND_PENDING",
  "INCOMING_PAYMENT.REFUND_COMPLETED",
  "INCOMING_PAYMENT.REFUND_FAILED",
  "CUSTOMER.KYC_APPROVED",
  "CUSTOMER.KYC_REJECTED",
  "CUSTOMER.KYC_PENDING",
  "CUSTOMER.KYB_APPROVED",
  "CUSTOMER.KYB_REJECTED",
  "CUSTOMER.KYB_PENDING",
  "VERIFICATION.APPROVED",
  "VERIFICATION.REJECTED",
  "VERIFICATION.RESOLVE_ERRORS",
  "VERIFICATION.IN_PROGRESS",
  "VERIFICATION.PENDING_MANUAL_REVIEW",
  "VERIFICATION.READY_FOR_VERIFICATION",
  "EXTERNAL_ACCOUNT.STATUS_UPDATED",
  "INTERNAL_ACCOUNT.BALANCE_UPDATED",
  "INTERNAL_ACCOUNT.STATUS_UPDATED",
  "INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED",
  "INVITATION.CLAIMED",
  "BULK_UPLOAD.COMPLETED",
  "BULK_UPLOAD.FAILED",
  "AGENT_ACTION.PENDING_APPROVAL",
  "CARD.STATE_CHANGE",
  "CARD.FUNDING_SOURCE_CHANGE",
  "CARD.PIN_STATUS_CHANGE",
  "CARD_TRANSACTION.AUTHORIZED",
  "CARD_TRANSACTION.PARTIALLY_SETTLED",
  "CARD_TRANSACTION.SETTLED",
  "CARD_TRANSACTION.DECLINED",
  "CARD_TRANSACTION.VOIDED",
  "CARD_TRANSACTION.EXCEPTION",
  "TEST"
] as const

export const WebhookType = Schema.Literals(WebhookTypes).annotate({ identifier: "WebhookType" })
export type WebhookType = typeof WebhookType.Type

// ---------------------------------------------------------------- payloads

/** `TEST` carries no `data`: the key must be absent. */
const NoData = Schema.optionalKey(Schema.Never)

const OutgoingTransactionData = OutgoingTransaction
const IncomingPaymentData = IncomingTransaction
const InternalAccountData = InternalAccount
const CardData = Card
const CardTransactionData = CardTransaction
const BulkCustomerImportJobData = BulkCustomerImportJob
const UmaInvitationData = UmaInvitation
const AgentActionData = AgentAction

/**
 * The `data` schema of a webhook type, by family. Spelled as a type (rather than inferred
 * from `Payloads`) so declarations name the domain schemas instead of expanding them.
 */
export type PayloadSchemaOf<T extends WebhookType> = T extends `CUSTOMER.${string}` ? typeof CustomerResponse
  : T extends `VERIFICATION.${string}` ? typeof Verification
  : T extends "EXTERNAL_ACCOUNT.STATUS_UPDATED" ? typeof ExternalAccount
  : T extends `OUTGOING_PAYMENT.${string}` ? typeof OutgoingTransaction
  : T extends `INCOMING_PAYMENT.${string}` ? typeof IncomingTransaction
  : T extends `INTERNAL_ACCOUNT.${string}` ? typeof InternalAccount
  : T extends `CARD.${string}` ? typeof Card
  : T extends `CARD_TRANSACTION.${string}` ? typeof CardTransaction
  : T extends "AGENT_ACTION.PENDING_APPROVAL" ? typeof AgentAction
  : T extends "INVITATION.CLAIMED" ? typeof UmaInvitation
  : T extends `BULK_UPLOAD.${string}` ? typeof BulkCustomerImportJob
  : T extends "TEST" ? typeof NoData
  : typeof Schema.Unknown

type Payloads = { readonly [T in WebhookType]: PayloadSchemaOf<T> }

/** The `data` schema of each webhook type: exactly one entry per type (the annotation checks it). */
const Payloads: Payloads = {
  "OUTGOING_PAYMENT.PENDING": OutgoingTransactionData,
  "OUTGOING_PAYMENT.PENDING_AUTHORIZATION": OutgoingTransactionData,
  "OUTGOING_PAYMENT.PROCESSING": OutgoingTransactionData,
  "OUTGOING_PAYMENT.COMPLETED": OutgoingTransactionData,
  "OUTGOING_PAYMENT.FAILED": OutgoingTransactionData,
  "OUTGOING_PAYMENT.EXPIRED": OutgoingTransactionData,
  "OUTGOING_PAYMENT.REFUND_PENDING": OutgoingTransactionData,
  "OUTGOING_PAYMENT.REFUND_COMPLETED": OutgoingTransactionData,
  "OUTGOING_PAYMENT.REFUND_FAILED": OutgoingTransactionData,
  "INCOMING_PAYMENT.PENDING": IncomingPaymentData,
  "INCOMING_PAYMENT.COMPLETED": IncomingPaymentData,
  "INCOMING_PAYMENT.FAILED": IncomingPaymentData,
  "INCOMING_PAYMENT.REFUND_PENDING": IncomingPaymentData,
  "INCOMING_PAYMENT.REFUND_COMPLETED": IncomingPaymentData,
  "INCOMING_PAYMENT.REFUND_FAILED": IncomingPaymentData,
  "CUSTOMER.KYC_APPROVED": CustomerResponse,
  "CUSTOMER.KYC_REJECTED": CustomerResponse,
  "CUSTOMER.KYC_PENDING": CustomerResponse,
  "CUSTOMER.KYB_APPROVED": CustomerResponse,
  "CUSTOMER.KYB_REJECTED": CustomerResponse,
  "CUSTOMER.KYB_PENDING": CustomerResponse,
  "VERIFICATION.APPROVED": Verification,
  "VERIFICATION.REJECTED": Verification,
  "VERIFICATION.RESOLVE_ERRORS": Verification,
  "VERIFICATION.IN_PROGRESS": Verification,
  "VERIFICATION.PENDING_MANUAL_REVIEW": Verification,
  "VERIFICATION.READY_FOR_VERIFICATION": Verification,
  "EXTERNAL_ACCOUNT.STATUS_UPDATED": ExternalAccount,
  "INTERNAL_ACCOUNT.BALANCE_UPDATED": InternalAccountData,
  "INTERNAL_ACCOUNT.STATUS_UPDATED": InternalAccountData,
  "INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED": InternalAccountData,
  "INVITATION.CLAIMED": UmaInvitationData,
  "BULK_UPLOAD.COMPLETED": BulkCustomerImportJobData,
  "BULK_UPLOAD.FAILED": BulkCustomerImportJobData,
  "AGENT_ACTION.PENDING_APPROVAL": AgentActionData,
  "CARD.STATE_CHANGE": CardData,
  "CARD.FUNDING_SOURCE_CHANGE": CardData,
  "CARD.PIN_STATUS_CHANGE": CardData,
  "CARD_TRANSACTION.AUTHORIZED": CardTransactionData,
  "CARD_TRANSACTION.PARTIALLY_SETTLED": CardTransactionData,
  "CARD_TRANSACTION.SETTLED": CardTransactionData,
  "CARD_TRANSACTION.DECLINED": CardTransactionData,
  "CARD_TRANSACTION.VOIDED": CardTransactionData,
  "CARD_TRANSACTION.EXCEPTION": CardTransactionData,
  "TEST": NoData
}

// ---------------------------------------------------------------- members

/** `Webhook:<uuid>`: the delivery id a receiver deduplicates on. */
export const WebhookId = ResourceId("Webhook")

/** Wire shape of one webhook type (reference `BaseWebhook` + `data`). */
export type EnvelopeMember<T extends WebhookType> = Schema.Struct<{
  readonly id: typeof WebhookId
  readonly type: Schema.Literal<T>
  readonly timestamp: typeof DateTimeString
  readonly data: Payloads[T]
}>

/** Outbox shape of one webhook type: the envelope plus the platform it is for. */
export type EventMember<T extends WebhookType> = Schema.Struct<{
  readonly id: typeof WebhookId
  readonly platformId: Schema.String
  readonly type: Schema.Literal<T>
  readonly timestamp: typeof DateTimeString
  readonly data: Payloads[T]
}>

// Generic so the mapped types map the tuple element-wise (a homomorphic mapped type over a
// type parameter keeps the tuple shape).
type EnvelopeMembersOf<L extends ReadonlyArray<WebhookType>> = {
  readonly [I in keyof L]: L[I] extends WebhookType ? EnvelopeMember<L[I]> : never
}
type EventMembersOf<L extends ReadonlyArray<WebhookType>> = {
  readonly [I in keyof L]: L[I] extends WebhookType ? EventMember<L[I]> : never
}
/** One envelope member per webhook type, in `WebhookTypes` order. */
export type EnvelopeMembers = EnvelopeMembersOf<typeof WebhookTypes>
/** One event member per webhook type, in `WebhookTypes` order. */
export type EventMembers = EventMembersOf<typeof WebhookTypes>

const envelopeMember = <T extends WebhookType>(type: T): EnvelopeMember<T> =>
  Schema.Struct({ id: WebhookId, type: Schema.Literal(type), timestamp: DateTimeString, data: Payloads[type] })
    .annotate({ identifier: `${type} webhook` })

const eventMember = <T extends WebhookType>(type: T): EventMember<T> =>
  Schema.Struct({
    id: WebhookId,
    platformId: Schema.String,
    type: Schema.Literal(type),
    timestamp: DateTimeString,
    data: Payloads[type]
  }).annotate({ identifier: `${type} event` })

// ---------------------------------------------------------------- unions

/** A state change in the outbox: one member per webhook type, keyed by `type`. */
export const DomainEvent = Schema.Union(WebhookTypes.map(eventMember) as unknown as EventMembers)
  .annotate({ identifier: "DomainEvent" })
  .pipe(Schema.toTaggedUnion("type"))
export type DomainEvent = typeof DomainEvent.Type

/** What is POSTed to the platform's webhook endpoint: the event without `platformId`. */
export const WebhookEnvelope = Schema.Union(WebhookTypes.map(envelopeMember) as unknown as EnvelopeMembers)
  .annotate({ identifier: "WebhookEnvelope" })
  .pipe(Schema.toTaggedUnion("type"))
export type WebhookEnvelope = typeof WebhookEnvelope.Type

/** The event whose `type` is `T`. */
export type EventOf<T extends WebhookType> = Extract<DomainEvent, { readonly type: T }>
/** The envelope whose `type` is `T`. */
export type EnvelopeOf<T extends WebhookType> = Extract<WebhookEnvelope, { readonly type: T }>
/** The `data` an event of type `T` carries (`never` for `TEST`). */
export type PayloadOf<T extends WebhookType> = Payloads[T]["Type"]

/** Everything of an event but its `type`, for `makeEvent`. */
export type EventFields<T extends WebhookType> = T extends WebhookType ? Omit<EventOf<T>, "type"> : never

/**
 * Builds an event of the given type; `data` must be that type's payload (and absent for
 * `TEST`). Type-checked only: no runtime validation, since it runs on every emit. Built
 * by one literal, its fields in one order: no spread copies (several events per payment), and
 * every event of a kind shares one hidden class with its fields inside the object (the
 * memory store keeps events for the retention period).
 */
export const makeEvent = <T extends WebhookType>(type: T, fields: EventFields<T>): EventOf<T> =>
  ("data" in fields
    ? { data: fields.data, id: fields.id, platformId: fields.platformId, timestamp: fields.timestamp, type }
    : { id: fields.id, platformId: fields.platformId, timestamp: fields.timestamp, type }) as unknown as EventOf<T>

/** The wire envelope of an event: the same event without `platformId`. */
export const envelopeOf = <E extends DomainEvent>(event: E): EnvelopeOf<E["type"]> => {
  const { platformId: _platformId, ...envelope } = event
  return envelope as unknown as EnvelopeOf<E["type"]>
}

/**
 * Decodes a received webhook body (already parsed JSON) into the typed envelope union.
 * Fails with a `SchemaError` on an unknown `type`, a malformed envelope or a `data` that
 * does not match its type's payload.
 */
export const decodeWebhookEnvelope: (
  input: unknown,
  options?: SchemaAST.ParseOptions
) => Effect.Effect<WebhookEnvelope, Schema.SchemaError> = Schema.decodeUnknownEffect(WebhookEnvelope)

/** As `decodeWebhookEnvelope`, from the raw JSON text of the body. */
export const decodeWebhookEnvelopeJson: (
  input: unknown,
  options?: SchemaAST.ParseOptions
) => Effect.Effect<WebhookEnvelope, Schema.SchemaError> = Schema.decodeUnknownEffect(Schema.fromJsonString(WebhookEnvelope))

/** As `decodeWebhookEnvelopeJson`, synchronously: throws a `SchemaError` on a body that is not a webhook. */
export const parseWebhookEnvelope: (input: string, options?: SchemaAST.ParseOptions) => WebhookEnvelope =
  Schema.decodeUnknownSync(Schema.fromJsonString(WebhookEnvelope))

const encodeEnvelope = Schema.encodeSync(WebhookEnvelope)

/**
 * The exact JSON body POSTed for an event: its envelope ENCODED with the type's payload
 * schema, so write-only fields (a customer's `identifier`) never leave the server.
 */
export const webhookBodyOf = (event: DomainEvent): string => JSON.stringify(encodeEnvelope(envelopeOf(event)))
