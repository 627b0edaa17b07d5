/**
 * vitest globalSetup: one throwaway PostgreSQL cluster for the whole run. Tests get its
 * superuser URL with `inject("databaseAdminUrl")` and make their own database with
 * `createDatabase` (test/support/postgres.ts). A missing PostgreSQL installation fails
 * the run: tests are never skipped for lack of a database.
 */
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { Effect, ManagedRuntime } from "effect"
import type { TestProject } from "vitest/node"
import { postgresStoreLayer } from "../../src/adapters/sql/index.js"
import { Store } from "../../src/ports/store.js"
import { createDatabase, freezeTemplate, postgresBinDir, type PostgresCluster, startPostgresCluster } from "./postgres.js"

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
    /** The name of a database of that cluster with every migration applied, to copy (`migratedDatabase`). */
    databaseTemplate: string
  }
}

const TEMPLATE = "payments_migrated"

/** Migrates the run's template database once, through the store itself, then freezes it. */
const migrateTemplate = async (adminUrl: string): Promise<string> => {
  const url = await createDatabase(adminUrl, TEMPLATE)
  const runtime = ManagedRuntime.make(postgresStoreLayer({ url, maxConnections: 1 }))
  try {
    await runtime.runPromise(Effect.service(Store))
  } finally {
    await runtime.dispose()
  }
  await freezeTemplate(adminUrl, TEMPLATE)
  return TEMPLATE
}

/**
 * One cluster for the whole run, however many projects ask (vitest runs a global setup
 * once per project): the first starts it, the last to finish stops it.
 */
let shared: { cluster: Promise<{ cluster: PostgresCluster; template: string }>; users: number } | undefined

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (shared === undefined) {
    ensurePostgresInstalled()
    const starting = startPostgresCluster().then(async (cluster) => {
      try {
        return { cluster, template: await migrateTemplate(cluster.adminUrl) }
      } catch (error) {
        await cluster.stop()
        throw error
      }
    })
    shared = { cluster: starting, users: 0 }
  }
  const run = shared
  run.users++
  const { cluster, template } = await run.cluster
  project.provide("databaseAdminUrl", cluster.adminUrl)
  project.provide("databaseTemplate", template)
  return async () => {
    if (--run.users === 0) {
      shared = undefined
      await cluster.stop()
    }
  }
}
