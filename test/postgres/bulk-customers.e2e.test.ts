/** The bulk customer upload end-to-end suite again, on the PostgreSQL store (a fresh database of the run's cluster per app). */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/bulk-customers.e2e.test.js")
