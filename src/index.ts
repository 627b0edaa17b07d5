/**
 * payments-service: the rules of a cross-border payments API as a library.
 * The root entry holds the pure layers: domain schemas and errors, the rules (state
 * machines, sandbox resolvers) and the crypto verifiers. Operations, the HTTP server,
 * the in-memory adapters and the testing helpers are subpath entries.
 */
export * as Domain from "./domain/index.js"
export * as Rules from "./rules/index.js"
export * as Crypto from "./crypto/index.js"
export * from "./domain/index.js"
export * from "./rules/index.js"
export * from "./crypto/index.js"
