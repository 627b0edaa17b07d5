/** The seed-document suite again, on the PostgreSQL store. */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/sandbox-seed.e2e.test.js")
