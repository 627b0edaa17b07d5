/** The fault-injection suite again, on the PostgreSQL store (rules in the sandbox_faults table). */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/sandbox-faults.e2e.test.js")
