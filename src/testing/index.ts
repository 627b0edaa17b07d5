/** Helpers for property-testing an integration: schema-derived arbitraries and model-based command sets. */
export * from "./arbitrary.js"
export * from "./card-model.js"
export * from "./commands.js"
export * from "./external-accounts-model.js"
export * from "./money-model.js"
export * from "./wallet-auth-model.js"
