/** The sandbox snapshots suite again, on the PostgreSQL store. */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/sandbox-snapshots.e2e.test.js")
