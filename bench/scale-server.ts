/**
 * The scale app (bench/servers/scale-app.ts) as a child process, filled with `payments`
 * payments before it reports ready: `npm run bench:scale` and `npm run bench:snapshots`
 * both start it this way.
 */
import { type ChildProcess, fork } from "node:child_process"
import { onCleanUp, trackChild } from "./cleanup.js"
import { bundle, serverNodeFlags, stopChild } from "./http.js"
import type { ScaleReady } from "./servers/scale-app.js"

export interface ScaleServer {
  readonly child: ChildProcess
  readonly ready: ScaleReady
  readonly stop: () => Promise<void>
}

/** Starts the scale app with `env` (and `extraNodeFlags`), resolving once it has filled its store. */
export const startScaleServer = async (
  payments: number,
  env: Record<string, string>,
  extraNodeFlags: ReadonlyArray<string> = []
): Promise<ScaleServer> => {
  const file = await bundle("./servers/scale-app.ts")
  const childEnv = { ...process.env, PAYMENTS_WEBHOOK_DESTINATIONS: "loopback", ...env, SCALE_PAYMENTS: String(payments) }
  const child = fork(file, [], { execArgv: [...extraNodeFlags, ...serverNodeFlags(childEnv)], stdio: ["ignore", "inherit", "inherit", "ipc"], env: childEnv })
  trackChild(child)
  child.on("error", () => {})
  const stop = onCleanUp(() => stopChild(child))
  try {
    const ready = await new Promise<ScaleReady>((resolve, reject) => {
      child.on("message", (m) => {
        if (typeof m === "object" && m !== null && "ready" in m) resolve((m as { ready: ScaleReady }).ready)
      })
      child.once("exit", (code, signal) => reject(new Error(`scale server exited with ${code ?? signal} while filling`)))
    })
    return { child, ready, stop }
  } catch (e) {
    await stop()
    throw e
  }
}
