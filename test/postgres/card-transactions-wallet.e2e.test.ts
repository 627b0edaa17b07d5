/** The embedded-wallet card-funding suite again, on the PostgreSQL store. */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/card-transactions-wallet.e2e.test.js")
