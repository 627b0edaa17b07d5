/** The card PIN and tokenization end-to-end suite again, on the PostgreSQL store. */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/cards-pin.e2e.test.js")
