/**
 * The start banner's platform lines (issue 25): sandbox secrets are printed to be copied,
 * a production platform's secret never is.
 */
import { describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { platformLines } from "../../src/server/banner.js"

const sandbox = platformFromConfig({ id: "play", clientId: "play_id", clientSecret: "play_secret_123" })
const production = platformFromConfig({ id: "live", clientId: "live_id", clientSecret: "live_secret_123", sandbox: false })
const BASE = "http://127.0.0.1:8080/2025-10-13"

describe("the banner's platforms", () => {
  it("prints a sandbox platform's secret and never a production one's, saying where it is kept", () => {
    const text = platformLines([production, sandbox], "/etc/payments/platforms.json", BASE).join("\n")
    expect(text).toContain("play: play_id / play_secret_123 (sandbox)")
    expect(text).toContain("live: live_id / (not printed: its clientSecret in /etc/payments/platforms.json) (production)")
    expect(text).not.toContain("live_secret_123")
    // The example request uses the sandbox platform, even when a production one comes first.
    expect(text).toContain(`Try: curl -u play_id:play_secret_123 ${BASE}/customers`)
  })

  it("names where each platform's webhooks may go, when told", () => {
    const own = platformFromConfig({ id: "own", clientId: "own_id", clientSecret: "own_secret_123", webhookDestinations: ["loopback", "10.0.0.0/8"] })
    const destinations = (p: typeof sandbox) => p.webhookDestinations ?? (p.settings.sandbox ? ["loopback", "public"] : ["public"])
    const lines = platformLines([sandbox, production, own], undefined, BASE, destinations)
    expect(lines).toContain("    play: play_id / play_secret_123 (sandbox; webhooks to loopback, public)")
    expect(lines.find((l) => l.includes("live_id"))).toMatch(/\(production; webhooks to public\)$/)
    expect(lines).toContain("    own: own_id / own_secret_123 (sandbox; webhooks to loopback, 10.0.0.0/8)")
    // Without it, the lines are as before.
    expect(platformLines([sandbox], undefined, BASE)).toContain("    play: play_id / play_secret_123 (sandbox)")
  })

  it("with production platforms only, the example request shows where the secret goes", () => {
    const text = platformLines([production], "platforms.json", BASE).join("\n")
    expect(text).not.toContain("live_secret_123")
    expect(text).toContain(`Try: curl -u live_id:<secret> ${BASE}/customers`)
  })
})
