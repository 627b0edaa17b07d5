/** The snapshot property (snapshot → any commands → restore gives back the snapshot's state) again, on the PostgreSQL store. */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
await import("../http/sandbox-snapshots.property.test.js")
