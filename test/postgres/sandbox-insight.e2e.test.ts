/** The sandbox insight end-to-end suite again, on the PostgreSQL store (a fresh database of the run's cluster per app). */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/sandbox-insight.e2e.test.js")
