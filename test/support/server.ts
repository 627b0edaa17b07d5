/**
 * The reference server as a child process, as a newcomer runs it: port 0, the banner
 * parsed, killed after each test. It runs src/server/main.ts bundled once per run
 * (test/support/server-global-setup.ts) rather than through tsx in every child.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, inject } from "vitest"

const children = new Set<ChildProcess>()

/** Takes a server out of the per-test cleanup (one that lives for a whole describe block). */
export const keepAcrossTests = (server: Server) => void children.delete(server.child)
const killAll = () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL")
  children.clear()
}
afterEach(killAll)

/** Temp directories (data directories, config files), removed when the file is done. */
const temps: Array<string> = []
export const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}
afterAll(async () => {
  const running = [...children]
  killAll()
  await Promise.all(running.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once("exit", r)) : undefined)))
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

export interface Server {
  readonly child: ChildProcess
  /** Resolves with the banner once the server listens; rejects if the process exits first. */
  readonly banner: Promise<string>
  /** The exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>
  readonly stdout: () => string
  readonly stderr: () => string
}

/**
 * Under the date matrix's libfaketime (.ci/run: `faketime -f "@<instant>"`) every new
 * process starts again at that instant, so a server restarted on the same data would
 * see its clock go back by however long the one before had run (a move scheduled by
 * the first is then not due yet in the second). A child continues the test's clock
 * instead: it starts at the test's current (faked) time, rounded up to the second
 * ("@" takes whole seconds, in local time), so it never starts before anything it may
 * find in the store. Nothing changes without faketime.
 */
const fakedClockEnv = (): Record<string, string> => {
  if (process.env["FAKETIME"]?.startsWith("@") !== true) return {}
  const at = new Date(Math.ceil(Date.now() / 1_000) * 1_000)
  const two = (n: number) => String(n).padStart(2, "0")
  return {
    FAKETIME: `@${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`
  }
}

/**
 * How far apart two child servers' clocks may be (ms): none on the real clock; under the
 * date matrix's libfaketime each child starts at its own rounded-up second (`fakedClockEnv`)
 * and ticks from its own start, so two children started a moment apart may differ by up to
 * a second. A test comparing one child's clock with another's allows this much.
 */
export const CHILD_CLOCK_SKEW_MS = process.env["FAKETIME"]?.startsWith("@") === true ? 1_000 : 0

/**
 * Where a child server's webhooks may go unless a test says otherwise (in `env`, or a
 * platform's own `webhookDestinations` in its platforms file): loopback only, so nothing
 * a test sets makes the server look a name up or dial off the machine (issue 26).
 */
export const CHILD_WEBHOOK_DESTINATIONS = "loopback"

export const start = (env: Record<string, string>): Server => {
  const child = spawn(process.execPath, [inject("serverEntry")], {
    // The store comes from the environment only: never inherit one from the test run.
    env: {
      ...process.env,
      ...fakedClockEnv(),
      DATABASE_URL: "",
      PAYMENTS_DATA_DIR: "",
      PAYMENTS_CONFIG: "",
      HOST: "127.0.0.1",
      PORT: "0",
      PAYMENTS_WEBHOOK_DESTINATIONS: CHILD_WEBHOOK_DESTINATIONS,
      // A new data directory starts from the run's migrated dump (test/support/server-global-setup.ts).
      PAYMENTS_PGLITE_TEMPLATE: inject("pgliteTemplateFile"),
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.add(child)
  let out = ""
  let err = ""
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()))
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const banner = new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes("Try: curl")) {
        clearInterval(timer)
        resolve(out)
      } else if (child.exitCode !== null || child.signalCode !== null) {
        clearInterval(timer)
        reject(new Error(`server exited ${child.exitCode ?? child.signalCode}: ${err}`))
      }
    }, 25)
  })
  banner.catch(() => undefined)
  return { child, banner, exited, stdout: () => out, stderr: () => err }
}


/** The API base URL the banner prints. */
export const baseOf = (banner: string): string => {
  const base = /API base URL: (\S+)/.exec(banner)?.[1]
  if (base === undefined) throw new Error(`no base URL in banner:\n${banner}`)
  return base
}
