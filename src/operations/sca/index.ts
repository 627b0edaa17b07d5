/** Strong Customer Authentication and Contact Verification (docs/sca.md): contact codes, factors, login, lockout, 2FA reset, quote authorization. */
export * as Contact from "./contact.js"
export * as Factors from "./factors.js"
export * as QuoteAuthorization from "./authorization.js"
