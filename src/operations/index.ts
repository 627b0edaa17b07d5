/** Use cases as Effect programs over the ports; the platform (tenant) is always an explicit argument. */
export * from "./beneficial-owners.js"
export * from "./customers.js"
export * from "./documents.js"
export * from "./external-accounts.js"
export * from "./time.js"
export * from "./verifications.js"
export * from "../ports/index.js"
