export * from "./external-account-create.js"
export * from "./external-account-status.js"
export * from "./result.js"
export * from "./sandbox/identifiers.js"
