/** Use cases as Effect programs over the ports; the platform (tenant) is always an explicit argument. */
export * from "./customers.js"
export * from "./external-accounts.js"
export * from "./time.js"
export * from "../ports/index.js"
