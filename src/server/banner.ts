/**
 * The platforms part of the start banner. A sandbox platform's secret is printed (it is
 * meant to be copied into a first request); a production platform's never is: the banner
 * names its client id and where its secret is kept (the platforms file). The `curl` line
 * uses the first sandbox platform, else shows the secret's place. `destinationsOf` names
 * where each platform's webhooks may go (docs/webhooks.md#destinations), when given.
 */
import type { Platform } from "../domain/platform.js"

/** Where the secrets come from: the platforms file's path, or the built-in sandbox platform. */
const secretPlace = (configPath: string | undefined) =>
  configPath === undefined ? "the built-in platform" : `its clientSecret in ${configPath}`

export const platformLines = (
  platforms: ReadonlyArray<Platform>,
  configPath: string | undefined,
  base: string,
  destinationsOf?: (platform: Platform) => ReadonlyArray<string>
): ReadonlyArray<string> => {
  const sandbox = platforms.find((p) => p.settings.sandbox)
  const first = sandbox ?? platforms[0]
  const webhooks = (p: Platform) => (destinationsOf === undefined ? "" : `; webhooks to ${destinationsOf(p).join(", ")}`)
  return [
    `  Platforms (HTTP Basic client id / secret):`,
    ...platforms.map((p) =>
      p.settings.sandbox
        ? `    ${p.id}: ${p.clientId} / ${p.clientSecret} (sandbox${webhooks(p)})`
        : `    ${p.id}: ${p.clientId} / (not printed: ${secretPlace(configPath)}) (production${webhooks(p)})`
    ),
    ...(first === undefined
      ? []
      : [`  Try: curl -u ${first.clientId}:${first === sandbox ? first.clientSecret : "<secret>"} ${base}/customers`])
  ]
}
