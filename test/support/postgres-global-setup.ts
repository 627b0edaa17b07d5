/**
 * vitest globalSetup: one throwaway PostgreSQL cluster for the whole run. Tests get its
 * superuser URL with `inject("databaseAdminUrl")` and make their own database with
 * `createDatabase` (test/support/postgres.ts). A missing PostgreSQL installation fails
 * the run: tests are never skipped for lack of a database.
 */
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import type { TestProject } from "vitest/node"
import { postgresBinDir, startPostgresCluster } from "./postgres.js"

/**
 * `npm install && npm test` on a fresh Debian machine as root (CI, a new container):
 * install the server from the Debian packages first, as .ci/run does. Anyone else
 * gets the install hint from startPostgresCluster.
 */
const ensurePostgresInstalled = () => {
  try {
    postgresBinDir()
    return
  } catch {
    if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) return
  }
  console.log("PostgreSQL is not installed: installing the Debian package for the SQL tests (apt-get install postgresql)")
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  execFileSync("apt-get", ["update", "-qq"], { stdio: ["ignore", "ignore", "inherit"], env })
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "postgresql"], { stdio: ["ignore", "ignore", "inherit"], env })
}

declare module "vitest" {
  export interface ProvidedContext {
    /** `postgres://postgres@127.0.0.1:PORT/postgres`, superuser of this run's throwaway cluster. */
    databaseAdminUrl: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  ensurePostgresInstalled()
  const cluster = await startPostgresCluster()
  project.provide("databaseAdminUrl", cluster.adminUrl)
  return () => cluster.stop()
}
