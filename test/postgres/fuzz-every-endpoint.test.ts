/** The fuzz campaign over every endpoint again, on the PostgreSQL store (a fresh database of the run's cluster). */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/fuzz-every-endpoint.test.js")
