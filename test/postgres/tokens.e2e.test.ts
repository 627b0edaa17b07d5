/** The API tokens end-to-end suite again, on the PostgreSQL store: tokens found by client id and revoked in SQL. */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/tokens.e2e.test.js")
