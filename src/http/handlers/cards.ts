import * as Cards from "../../operations/cards/cards.js"
import * as Pin from "../../operations/cards/pin.js"
import { implement } from "../concerns.js"
import { CardsGroup } from "../groups/cards.js"
import { run } from "./run.js"

export const CardsHandlers = implement(CardsGroup, (handlers) =>
  handlers
    .handle("createCard", ({ payload }) => run((p) => Cards.createCard(p, payload)))
    .handle("listCards", ({ query }) => run((p) => Cards.listCards(p, query)))
    .handle("getCardById", ({ params }) => run((p) => Cards.getCard(p, params.id)))
    .handle("updateCardById", ({ params, payload }) => run((p) => Cards.updateCard(p, params.id, payload)))
    .handle("revealCard", ({ params }) => run((p) => Cards.revealCard(p, params.id)))
    .handle("getCardSetPinUrl", ({ params }) => run((p) => Pin.setPinUrl(p, params.id)))
    .handle("setCardPin", ({ params, payload }) => run((p) => Pin.setPin(p, params.id, payload)))
    .handle("unblockCardPin", ({ params }) => run((p) => Pin.unblockPin(p, params.id)))
    .handle("tokenizeCard", ({ params, payload }) => run((p) => Pin.tokenizeCard(p, params.id, payload)))
    .handle("sandboxCardPinEntry", ({ params, payload }) => run((p) => Pin.sandboxPinEntry(p, params.id, payload))))
