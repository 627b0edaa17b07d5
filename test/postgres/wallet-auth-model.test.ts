/** The embedded-wallet auth model again, on the PostgreSQL store (a fresh database of the run's cluster). */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../testing/wallet-auth-model.test.js")
