/** The money model and its auditor again, on the PostgreSQL store (a fresh database of the run's cluster). */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../testing/money-model.test.js")
