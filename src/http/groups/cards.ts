/**
 * Cards (docs/cards.md): issue, list, get, update and reveal, as the reference file's
 * Cards tag, with SPEC.md's names (`status`, `pinStatus`, `cardCapabilities`) beside
 * the reference's.
 */
import type { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
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
import { IdText } from "../../domain/common.js"
import { Error403, Error404, Error409, Error501 } from "../../domain/errors.js"
import { declare } from "../declarations.js"
import { acts, apiGroup, creates, page } from "../endpoints.js"

const cardParams = { id: IdText }
/** Every card endpoint answers 501 to a platform with cards turned off. */
const CardErrors = [Error404, Error409, Error501]
/** An action on the card the path names, with no body. */
const onCard = <const S extends Schema.Top>(success: S) => ({ params: cardParams, success, error: CardErrors })

export class CardsGroup extends apiGroup("cards", { title: "Cards", permission: "MANAGE" },
  HttpApiEndpoint.post("createCard", "/cards", creates(CardCreateRequest, Card, [Error409, Error501])).annotate(
    OpenApi.Description,
    "Issues a card to an APPROVED cardholder, bound to its funding sources in priority order. The sandbox provisions at once: the card is ACTIVE and CARD.STATE_CHANGE fires."
  ),
  HttpApiEndpoint.get("listCards", "/cards", {
    query: page(CardListFilters),
    success: CardListResponse,
    error: Error501
  }),
  HttpApiEndpoint.get("getCardById", "/cards/:id", { params: cardParams, success: Card, error: [Error404, Error501] }),
  HttpApiEndpoint.patch("updateCardById", "/cards/:id", acts(cardParams, CardUpdateRequest, Card, CardErrors)).annotate(
    OpenApi.Description,
    "Changes the card's status (`state` or SPEC.md's `status`: ACTIVE ⇄ FROZEN, ACTIVE | FROZEN → CLOSED), its funding sources (replaced whole) and its spend limit (null clears it)."
  ),
  HttpApiEndpoint.post("revealCard", "/cards/:id/reveal", onCard(CardRevealResponse)),
  HttpApiEndpoint.get("getCardSetPinUrl", "/cards/:id/set-pin-url", onCard(CardSetPinUrlResponse)).annotate(
    OpenApi.Description,
    "SPEC.md's: a temporary URL of the secure PIN-entry iframe, which reports to the platform's cardConfigs.pinTargetOrigin (configure it first with PATCH /config)."
  ),
  HttpApiEndpoint.post("setCardPin", "/cards/:id/set-pin", acts(cardParams, CardSetPinRequest, Card, CardErrors)).annotate(OpenApi.Description, "SPEC.md's: sets (or replaces) the card's PIN from an encrypted PIN block; pinStatus becomes OK."),
  HttpApiEndpoint.post("unblockCardPin", "/cards/:id/pin/unblock", onCard(Card)).annotate(OpenApi.Description, "SPEC.md's: clears a BLOCKED PIN without changing it (pinStatus OK); 409 when the PIN is not BLOCKED."),
  HttpApiEndpoint.post("tokenizeCard", "/cards/:id/tokenize", acts(cardParams, CardTokenizeRequest, CardTokenizeResponse, CardErrors)).annotate(
    OpenApi.Description,
    "SPEC.md's: exchanges the values a digital-wallet SDK produced for an encrypted provisioning payload (in-app add-to-wallet)."
  ),
  HttpApiEndpoint.post(
    "sandboxCardPinEntry",
    "/sandbox/cards/:id/pin-entry",
    acts(cardParams, SandboxCardPinEntryRequest, SandboxCardPinEntryResponse, [Error403, Error404, Error409])
  ).annotate(
    OpenApi.Description,
    "Ours, sandbox only: a PIN typed at a terminal (the encrypted PIN block last set is the correct one); three incorrect entries in a row block the PIN."
  ).pipe(declare({ sandboxOnly: true }))
) {}
