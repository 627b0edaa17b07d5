/** fast-check run counts: small by default so the crypto suite stays fast; FC_NUM_RUNS raises them. */
const fromEnv = Number.parseInt(process.env["FC_NUM_RUNS"] ?? "", 10)

export const numRuns = (defaultRuns: number): number => (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : defaultRuns)
