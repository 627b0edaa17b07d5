/** The card-transaction rules (docs/card-transactions.md): the machine, authorization decisioning, the sandbox table. */
export * as CardTransactionMachine from "./transactions.js"
export * as CardTransactionDecisioning from "./transactions-decisioning.js"
export * as CardSimulations from "./simulations.js"
