/** Property-test run counts: small by default so `npm test` stays fast; FC_NUM_RUNS raises them. */
export const numRuns = (fallback: number): number => {
  const env = Number(process.env["FC_NUM_RUNS"])
  return Number.isFinite(env) && env > 0 ? env : fallback
}

/** fast-check's `seed` and `path` from FC_SEED / FC_PATH, to replay a failure a property test printed. */
export const replay = (): { seed?: number; path?: string } => {
  const seed = process.env["FC_SEED"]
  const path = process.env["FC_PATH"]
  return {
    ...(seed === undefined || !Number.isFinite(Number(seed)) ? {} : { seed: Number(seed) }),
    ...(path === undefined ? {} : { path })
  }
}
