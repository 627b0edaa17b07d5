/** The card operations: issue, list, get, update, reveal (cards.ts); PIN and tokenization (pin.ts). */
export * from "./cards.js"
export * from "./pin.js"
