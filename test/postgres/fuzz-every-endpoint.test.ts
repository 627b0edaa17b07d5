/**
 * The every-endpoint fuzz suite again, on the PostgreSQL store (a fresh database of the
 * run's cluster per app), at 6 runs per endpoint instead of 30 unless FC_NUM_RUNS says
 * otherwise: on PostgreSQL it checks that a refused request stores nothing (the unit of
 * work rolls back); the memory run covers the input space.
 */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
process.env["FC_NUM_RUNS"] ??= "6"
await import("../http/fuzz-every-endpoint.test.js")
