/**
 * vitest globalSetup: one throwaway PostgreSQL cluster for the whole run. Tests get its
 * superuser URL with `inject("databaseAdminUrl")` and make their own database with
 * `createDatabase` (test/support/postgres.ts). A missing PostgreSQL installation fails
 * the run: tests are never skipped for lack of a database.
 */
import type { TestProject } from "vitest/node"
import { startPostgresCluster } from "./postgres.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** `postgres://postgres@127.0.0.1:PORT/postgres`, superuser of this run's throwaway cluster. */
    databaseAdminUrl: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startPostgresCluster()
  project.provide("databaseAdminUrl", cluster.adminUrl)
  return () => cluster.stop()
}
