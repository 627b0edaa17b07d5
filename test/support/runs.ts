/** Property-test run counts: small by default so `npm test` stays fast; FC_NUM_RUNS raises them. */
export const numRuns = (fallback: number): number => {
  const env = Number(process.env["FC_NUM_RUNS"])
  return Number.isFinite(env) && env > 0 ? env : fallback
}
