/**
 * The bench and the examples never reach off the machine (issue 26): whatever app or
 * server they build delivers webhooks to loopback only. Checked on their sources, line
 * by line, so a new bench script or example cannot start a server without it:
 * - `servicesFor(…)` is given `webhookDestinations: ["loopback"]` (the server's
 *   --webhook-destinations, for every platform without a list of its own: none of theirs
 *   has one, which is checked too);
 * - a store layer with the default HTTP sender (`memoryLayer`, `pgliteLayer`,
 *   `postgresLayer`) is merged with `LoopbackWebhookSenderLayer` on the same line;
 * - no other sender is built there (`HttpWebhookSenderLayer`, `webhookSenderLayer`, …);
 * - a child process a script spawns with an environment gets PAYMENTS_WEBHOOK_DESTINATIONS.
 * test/adapters/webhook-destinations.test.ts and test/http/harness-network.test.ts show
 * what those settings do.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")

const sourcesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === "node_modules") return []
    if (statSync(path).isDirectory()) return sourcesUnder(path)
    return /\.(ts|json)$/.test(name) ? [path] : []
  })

const files = [...sourcesUnder(join(root, "bench")), ...sourcesUnder(join(root, "examples"))]

/** Every line of a source (`name`, `text`) that breaks a rule, as `name:line: why`. */
const violationsIn = (name: string, text: string): Array<string> => {
  if (name.endsWith(".json")) return /"webhookDestinations"/.test(text) ? [`${name}: a platform with webhookDestinations of its own`] : []
  const out: Array<string> = []
  const lines = text.split("\n")
  lines.forEach((line, i) => {
    const at = `${name}:${i + 1}`
    if (/^\s*(import|\/\/|\*|\/\*\*)/.test(line)) return
    if (/\bservicesFor\(/.test(line) && !line.includes(`webhookDestinations: ["loopback"]`)) out.push(`${at}: servicesFor without webhookDestinations: ["loopback"]`)
    if (/\b(memoryLayer|pgliteLayer|postgresLayer)\(/.test(line) && !line.includes("LoopbackWebhookSenderLayer")) out.push(`${at}: a store layer without LoopbackWebhookSenderLayer`)
    if (/\b(HttpWebhookSenderLayer|httpWebhookSender|webhookSenderLayer|guardedWebhookSender|httpTransport)\b/.test(line)) out.push(`${at}: a webhook sender other than the loopback one`)
    if (/\bwebhookDestinations\s*:/.test(line) && !line.includes(`webhookDestinations: ["loopback"]`)) out.push(`${at}: webhookDestinations other than loopback`)
    if (/PAYMENTS_WEBHOOK_DESTINATIONS\s*:/.test(line) && !line.includes(`PAYMENTS_WEBHOOK_DESTINATIONS: "loopback"`)) out.push(`${at}: PAYMENTS_WEBHOOK_DESTINATIONS other than loopback`)
  })
  // A child process given an environment gets the setting too.
  if (/\b(spawn|fork)\([\s\S]*\benv\s*:/.test(text) && !text.includes(`PAYMENTS_WEBHOOK_DESTINATIONS: "loopback"`)) out.push(`${name}: a child process with an environment without PAYMENTS_WEBHOOK_DESTINATIONS: "loopback"`)
  return out
}

describe("the bench and the examples", () => {
  it("are checked: the sources are there", () => {
    expect(files.some((f) => f.endsWith(join("bench", "servers", "app.ts")))).toBe(true)
    expect(files.some((f) => f.endsWith(join("examples", "server-custom-platforms.ts")))).toBe(true)
  })

  it("deliver webhooks to loopback only, in every app and server they build", () => {
    expect(files.flatMap((f) => violationsIn(relative(root, f), readFileSync(f, "utf8")))).toEqual([])
  })

  it("the check catches an app or a server built without the setting", () => {
    const caught = (text: string) => violationsIn("probe.ts", text).length
    expect(caught(`serveReference({ services: servicesFor(choice, [platform]), host: "127.0.0.1", port: 0 })`)).toBe(1)
    expect(caught(`const app = makeWebHandler({ services: memoryLayer([platform]) })`)).toBe(1)
    expect(caught(`Layer.merge(pgliteLayer([p], {}), HttpWebhookSenderLayer)`)).toBe(2)
    expect(caught(`servicesFor(choice, [p], { webhookDestinations: ["loopback", "public"] })`)).toBe(2)
    expect(caught(`const child = spawn(cmd, args, { env: { ...process.env, DATABASE_URL: url } })`)).toBe(1)
    expect(violationsIn("platforms.json", `{ "platforms": [{ "id": "a", "webhookDestinations": ["public"] }] }`)).toHaveLength(1)
    expect(caught(`serveReference({ services: servicesFor(choice, [platform], { webhookDestinations: ["loopback"] }) })`)).toBe(0)
    expect(caught(`Effect.provide(Layer.merge(memoryLayer([platform]), LoopbackWebhookSenderLayer))`)).toBe(0)
  })
})
