/** Helpers for property-testing an integration: fast-check arbitraries derived from the API's schemas. */
export * from "./arbitrary.js"
