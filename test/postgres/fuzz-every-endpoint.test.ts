/**
 * The every-endpoint fuzz suite again, on the PostgreSQL store (a fresh database of the
 * run's cluster per app), at 4 runs per endpoint instead of 20 unless FC_NUM_RUNS says
 * otherwise: on PostgreSQL it checks that a refused request stores nothing (the unit of
 * work rolls back); the memory run covers the input space.
 *
 * The suite reads its run count when imported; the setting is put back at once, since the
 * other files of this worker share its process (vitest.config.ts, project "postgres").
 */
process.env["PAYMENTS_TEST_STORE"] = "postgres"
const runs = process.env["FC_NUM_RUNS"]
process.env["FC_NUM_RUNS"] = runs ?? "4"
try {
  await import("../http/fuzz-every-endpoint.test.js")
} finally {
  if (runs === undefined) delete process.env["FC_NUM_RUNS"]
  else process.env["FC_NUM_RUNS"] = runs
}
