/**
 * Cards (docs/cards.md): issue, list, get, update and reveal, as the reference file's
 * Cards tag, with SPEC.md's names (`status`, `pinStatus`, `cardCapabilities`) beside
 * the reference's.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  Card,
  CardCreateRequest,
  CardListFilters,
  CardListResponse,
  CardRevealResponse,
  CardSetPinRequest,
  CardSetPinUrlResponse,
  CardTokenizeRequest,
  CardTokenizeResponse,
  CardUpdateRequest,
  SandboxCardPinEntryRequest,
  SandboxCardPinEntryResponse
} from "../../domain/card.js"
import { IdempotencyHeaders, IdText, PageQuery } from "../../domain/common.js"
import { Error403, Error404, Error409, Error501 } from "../../domain/errors.js"
import { Concerns, declare } from "../declarations.js"

const created = <S extends Schema.Top>(s: S) => s.pipe(HttpApiSchema.status(201))

const cardParams = { id: IdText }

export class CardsGroup extends HttpApiGroup.make("cards")
  .annotate(Concerns, { permission: "MANAGE" })
  .add(
    HttpApiEndpoint.post("createCard", "/cards", {
      headers: IdempotencyHeaders,
      payload: CardCreateRequest,
      success: created(Card),
      error: [Error404, Error409, Error501]
    }).annotate(
      OpenApi.Description,
      "Issues a card to an APPROVED cardholder, bound to its funding sources in priority order. The sandbox provisions at once: the card is ACTIVE and CARD.STATE_CHANGE fires."
    ),
    HttpApiEndpoint.get("listCards", "/cards", {
      query: { ...PageQuery, ...CardListFilters },
      success: CardListResponse,
      error: Error501
    }),
    HttpApiEndpoint.get("getCardById", "/cards/:id", { params: cardParams, success: Card, error: [Error404, Error501] }),
    HttpApiEndpoint.patch("updateCardById", "/cards/:id", {
      params: cardParams,
      payload: CardUpdateRequest,
      success: Card,
      error: [Error404, Error409, Error501]
    }).annotate(
      OpenApi.Description,
      "Changes the card's status (`state` or SPEC.md's `status`: ACTIVE ⇄ FROZEN, ACTIVE | FROZEN → CLOSED), its funding sources (replaced whole) and its spend limit (null clears it)."
    ),
    HttpApiEndpoint.post("revealCard", "/cards/:id/reveal", {
      params: cardParams,
      success: CardRevealResponse,
      error: [Error404, Error409, Error501]
    }),
    HttpApiEndpoint.get("getCardSetPinUrl", "/cards/:id/set-pin-url", {
      params: cardParams,
      success: CardSetPinUrlResponse,
      error: [Error404, Error409, Error501]
    }).annotate(
      OpenApi.Description,
      "SPEC.md's: a temporary URL of the secure PIN-entry iframe, which reports to the platform's cardConfigs.pinTargetOrigin (configure it first with PATCH /config)."
    ),
    HttpApiEndpoint.post("setCardPin", "/cards/:id/set-pin", {
      params: cardParams,
      payload: CardSetPinRequest,
      success: Card,
      error: [Error404, Error409, Error501]
    }).annotate(OpenApi.Description, "SPEC.md's: sets (or replaces) the card's PIN from an encrypted PIN block; pinStatus becomes OK."),
    HttpApiEndpoint.post("unblockCardPin", "/cards/:id/pin/unblock", {
      params: cardParams,
      success: Card,
      error: [Error404, Error409, Error501]
    }).annotate(OpenApi.Description, "SPEC.md's: clears a BLOCKED PIN without changing it (pinStatus OK); 409 when the PIN is not BLOCKED."),
    HttpApiEndpoint.post("tokenizeCard", "/cards/:id/tokenize", {
      params: cardParams,
      payload: CardTokenizeRequest,
      success: CardTokenizeResponse,
      error: [Error404, Error409, Error501]
    }).annotate(
      OpenApi.Description,
      "SPEC.md's: exchanges the values a digital-wallet SDK produced for an encrypted provisioning payload (in-app add-to-wallet)."
    ),
    HttpApiEndpoint.post("sandboxCardPinEntry", "/sandbox/cards/:id/pin-entry", {
      params: cardParams,
      payload: SandboxCardPinEntryRequest,
      success: SandboxCardPinEntryResponse,
      error: [Error403, Error404, Error409]
    }).annotate(
      OpenApi.Description,
      "Ours, sandbox only: a PIN typed at a terminal (the encrypted PIN block last set is the correct one); three incorrect entries in a row block the PIN."
    )
  )
  .annotateMerge(OpenApi.annotations({ title: "Cards" }))
{}
