import { type Platform, platformFromConfig } from "../../src/domain/platform.js"

export const benchPlatform: Platform = platformFromConfig({ id: "bench", clientId: "bench_client", clientSecret: "bench_secret_123" })
