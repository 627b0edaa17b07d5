import type { Platform } from "../../src/domain/platform.js"

export const benchPlatform: Platform = {
  id: "bench",
  name: "Bench",
  clientId: "bench_client",
  clientSecret: "bench_secret_123",
  settings: { regulated: false, skipVerificationPaperwork: false, travelRule: false, sandbox: true }
}
