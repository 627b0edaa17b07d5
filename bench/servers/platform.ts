import { type Platform, platformFromConfig } from "../../src/domain/platform.js"

export const benchPlatform: Platform = platformFromConfig({ id: "bench", clientId: "bench_client", clientSecret: "bench_secret_123" })

/** The money bench's platform: regulated, so sandbox customers are approved (and get internal accounts) at creation. */
export const benchMoneyPlatform: Platform = platformFromConfig({
  id: "bench-money",
  clientId: "bench_money_client",
  clientSecret: "bench_money_secret_123",
  regulated: true
})
