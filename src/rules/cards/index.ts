/** The card rules: the status machine, funding-source eligibility, card slots, the PIN machine. */
export * as CardStatusMachine from "./status.js"
export * as FundingSources from "./funding-sources.js"
export * as CardSlots from "./slots.js"
export * as CardPinMachine from "./pin.js"
