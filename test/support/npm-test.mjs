/**
 * `npm test`: the type check (`tsc --noEmit`, incremental: its state in .test-server/)
 * and `vitest run` side by side, rather than one after the other. The type check uses
 * one core for its whole run (about 40 s of CPU from a fresh clone), while vitest starts
 * its PostgreSQL cluster and bundles the server; in sequence the other core idled that
 * long. The test run's output comes as it goes; the type check's is printed after it,
 * with a closing line. Exits non-zero when either failed. Arguments go to vitest
 * (`npm test -- test/http/`).
 */
import { spawn } from "node:child_process"
import { mkdirSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")
const bin = (name) => join(root, "node_modules", ".bin", name)
mkdirSync(join(root, ".test-server"), { recursive: true })

/** Runs a command; resolves with its exit code (1 when it could not start or was killed). */
const run = (command, args, capture) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit" })
    let output = ""
    if (capture) {
      child.stdout.on("data", (d) => (output += d.toString()))
      child.stderr.on("data", (d) => (output += d.toString()))
    }
    child.on("error", (error) => {
      output += `${command}: ${error.message}\n`
      resolve({ code: 1, output })
    })
    child.on("close", (code) => resolve({ code: code ?? 1, output }))
  })

const typeCheck = run(bin("tsc"), ["--noEmit", "-p", ".", "--incremental", "--tsBuildInfoFile", ".test-server/tsc.tsbuildinfo"], true)
const tests = await run(bin("vitest"), ["run", ...process.argv.slice(2)], false)
const types = await typeCheck
if (types.output.trim() !== "") process.stdout.write(`\n${types.output.trimEnd()}\n`)
console.log(types.code === 0 ? "type check (tsc --noEmit): passed" : `type check (tsc --noEmit): FAILED (exit ${types.code})`)
process.exit(tests.code !== 0 ? tests.code : types.code)
