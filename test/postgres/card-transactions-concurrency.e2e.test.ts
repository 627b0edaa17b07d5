/** The racing-authorizations suite again, on the PostgreSQL store (real concurrent units of work). */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/card-transactions-concurrency.e2e.test.js")
