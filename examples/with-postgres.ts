/**
 * Runs a command with DATABASE_URL pointing at a fresh database on a throwaway
 * PostgreSQL cluster (the tests' helper, test/support/postgres.ts), then stops the
 * cluster and exits with the command's exit code. Used by run-all.sh for the
 * PostgreSQL example; handy for trying it without a database of your own:
 *
 *   node --import tsx examples/with-postgres.ts npm run example:postgres
 */
import { spawn } from "node:child_process"
import { createDatabase, startPostgresCluster } from "../test/support/postgres.js"

const [command, ...args] = process.argv.slice(2)
if (command === undefined) {
  console.error("usage: node --import tsx examples/with-postgres.ts <command> [args...]")
  process.exit(2)
}

// Interrupted (Ctrl-C, or run-all.sh's time limit): exit through process.exit, whose
// "exit" hook in the helper stops the cluster, so no postmaster outlives this process.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(1))

const cluster = await startPostgresCluster()
let code = 1
try {
  const url = await createDatabase(cluster.adminUrl, "payments_example")
  code = await new Promise<number>((resolve, reject) => {
    const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, DATABASE_URL: url, PAYMENTS_WEBHOOK_DESTINATIONS: "loopback" } })
    child.on("error", reject)
    // A child killed by a signal has no exit code: count it as a failure.
    child.on("exit", (status) => resolve(status ?? 1))
  })
} finally {
  await cluster.stop()
}
process.exit(code)
