/**
 * Taking over a stale PAYMENTS_DATA_DIR lock: the check and the removal happen under a
 * guard, so a process that judged the lock stale never removes a fresh lock another
 * process wrote after it looked.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { removeStaleLock } from "../../src/adapters/sql/pglite.js"
import { bundled } from "../support/bundle.js"

const dirs: Array<string> = []
const lockIn = () => {
  const dir = mkdtempSync(join(tmpdir(), "lock-"))
  dirs.push(dir)
  return join(dir, "payments-service.lock")
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe("removeStaleLock", () => {
  it("removes the lock when it still holds what was judged stale", () => {
    const path = lockIn()
    writeFileSync(path, "4242")
    expect(removeStaleLock(path, "4242")).toBe(true)
    expect(existsSync(path)).toBe(false)
    expect(existsSync(`${path}.takeover`)).toBe(false)
  })

  it("leaves a lock another process wrote after the caller looked", () => {
    const path = lockIn()
    writeFileSync(path, "4242")
    const seen = readFileSync(path, "utf8")
    // Meanwhile a faster process took the stale lock over and wrote its own.
    rmSync(path)
    writeFileSync(path, "5151")
    expect(removeStaleLock(path, seen)).toBe(false)
    expect(readFileSync(path, "utf8")).toBe("5151")
    expect(existsSync(`${path}.takeover`)).toBe(false)
  })

  it("says the lock is gone when another process already removed it", () => {
    const path = lockIn()
    expect(removeStaleLock(path, "4242")).toBe(true)
  })

  it("does nothing while another process is inside a takeover", () => {
    const path = lockIn()
    writeFileSync(path, "4242")
    mkdirSync(`${path}.takeover`)
    expect(removeStaleLock(path, "4242")).toBe(false)
    expect(readFileSync(path, "utf8")).toBe("4242")
    expect(existsSync(`${path}.takeover`)).toBe(true)
  })

  it("clears a guard left by a process that died inside a takeover, then takes over on the next try", () => {
    const path = lockIn()
    writeFileSync(path, "4242")
    mkdirSync(`${path}.takeover`)
    const old = new Date(Date.now() - 60_000)
    utimesSync(`${path}.takeover`, old, old)
    expect(removeStaleLock(path, "4242")).toBe(false)
    expect(existsSync(`${path}.takeover`)).toBe(false)
    expect(removeStaleLock(path, "4242")).toBe(true)
    expect(existsSync(path)).toBe(false)
  })
})

describe("several processes taking over one stale lock at once", () => {
  it("exactly one of them gets it; the others are told who holds it", async () => {
    const { spawn, spawnSync } = await import("node:child_process")
    const path = lockIn()
    const dir = join(path, "..")
    const gone = spawnSync(process.execPath, ["-e", ""]).pid
    writeFileSync(path, String(gone))
    // Bundled: each child imports it natively rather than through tsx.
    const module = await bundled("src/adapters/sql/pglite.ts")
    // Each child waits for the same start time, tries once, says what it got, and holds it
    // until every child has answered: a winner that exited early would leave a stale lock
    // that a child slower to start (a loaded machine) rightly takes over.
    const startAt = Date.now() + 1500
    const script = `
      const { acquireDataDirLock } = await import(${JSON.stringify(module)})
      // Asleep until just before the start time, then a short spin to it (six children spinning the whole wait took seconds of CPU).
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, ${startAt} - Date.now() - 20)))
      while (Date.now() < ${startAt}) {}
      try { acquireDataDirLock(${JSON.stringify(dir)}); console.log("won") } catch (e) { console.log("refused: " + e.message) }
      setInterval(() => {}, 1000)
    `
    const children = Array.from({ length: 6 }, () => spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] }))
    const outcomes = await Promise.all(children.map((child) =>
      new Promise<string>((resolve, reject) => {
        let out = ""
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString()
          if (out.includes("\n")) resolve(out.trim())
        })
        child.on("error", reject)
        child.on("exit", () => resolve(out.trim()))
      }))).finally(() => {
      for (const child of children) child.kill("SIGKILL")
    })
    expect(outcomes.filter((o) => o === "won"), outcomes.join("\n")).toHaveLength(1)
    for (const o of outcomes.filter((x) => x !== "won")) expect(o).toMatch(/^refused: PAYMENTS_DATA_DIR .* is in use by process \d+/)
  }, 30_000)
})
