import { availableParallelism } from "node:os"
import { join } from "node:path"
import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * How `npm test` spends its time (issue #18: within 3 minutes on 2 cores).
 *
 * - Workers: vitest's default is one fewer than the cores, so a single worker on a
 *   2-core machine; most files wait on I/O (PostgreSQL, child servers, loopback
 *   webhooks) as much as on the CPU, so one more worker than cores keeps both busy.
 *   VITEST_MAX_WORKERS overrides it.
 * - Three projects. "in-process" (everything but test/postgres/ and test/server/) shares
 *   one module graph per worker (`isolate: false`): effect, the schemas and the app are
 *   imported once per worker instead of once per file, which was a third of the run.
 *   Nothing in those files keeps state between files beyond counters. "postgres"
 *   (test/postgres/) shares one graph per worker too, in workers of its own (vitest
 *   reuses a worker only within its project) whose environment has
 *   PAYMENTS_TEST_STORE=postgres: its files re-import memory suites, each suite by one
 *   file, so sharing the graph never skips a suite (importing the graph once per file
 *   was half of that project's CPU time). A file there that changes another
 *   process-wide setting puts it back (test/postgres/fuzz-every-endpoint.test.ts).
 *   "isolated" keeps a fresh module graph per file: test/server/ registers its
 *   child-process cleanup when its helper is first imported.
 * - test/postgres/ re-runs only the end-to-end suites whose behaviour depends on the
 *   store (money, concurrency, timers, the outbox): see test/postgres/README.md and
 *   docs/decisions.md. The store contract suites (test/adapters/) prove the stores agree
 *   on everything else.
 * - The PostgreSQL cluster migrates a template database once per run; each test
 *   database is a copy of it (test/support/postgres-global-setup.ts). Likewise one
 *   migrated PGlite dump per run, written to a file for the servers and read once per
 *   worker for the in-process PGlite stores (test/support/pglite-template.ts); only the
 *   tests of migrating start from an empty database.
 * - Servers started as child processes (test/server/) run one bundle of
 *   src/server/main.ts with its packages in it, made once per run
 *   (test/support/server-global-setup.ts), not tsx, and without reading its source map
 *   (NODE_OPTIONS=--enable-source-maps to map their stack traces). Other child processes
 *   import a bundle of the module they need (test/support/bundle.ts). A test/server/ file
 *   starts a server only where a test needs a fresh one; runs several tests compare
 *   with are made once.
 * - Property depth: `npm test` is the loop everyone runs, so the every-endpoint fuzz
 *   sends 20 requests per endpoint (4 on PostgreSQL) and `.ci/run` runs it again at 150;
 *   FC_NUM_RUNS raises every property's runs. `arbitraryFor` (src/testing/) makes each
 *   pattern's generator once (making the external account arbitraries was seconds).
 * - `npm test` (test/support/npm-test.mjs) runs `tsc --noEmit` beside vitest rather than
 *   before it: the type check uses one core for its whole run.
 */
// Node's on-disk compile cache for every process of the run: the workers import effect and
// the other packages natively, and each server a test starts (test/support/server.ts) loads
// the same modules again; compiled once, each later process skips most of that (about a
// sixth of a server's start). Beside the server bundle, in .test-server/ (git ignores it);
// entries are checked against the source, so a stale one is recompiled. A
// NODE_COMPILE_CACHE already set wins.
process.env["NODE_COMPILE_CACHE"] ??= join(import.meta.dirname, ".test-server", "compile-cache")

const cores = availableParallelism()
const fromEnv = Number(process.env["VITEST_MAX_WORKERS"])
const maxWorkers = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : cores + 1

const postgresDir = "test/postgres/**"
const isolatedDir = "test/server/**"

/**
 * The order files start in: the projects whose files wait on real time or child processes
 * first (servers, then PostgreSQL), the many short in-process files last, so the run ends
 * on short files that keep both cores busy rather than on one long file waiting for a
 * server (vitest's own order is by project name). Within a project vitest's order stands:
 * longest first by the last run's durations, else largest file first.
 */
const projectOrder = ["isolated", "postgres", "in-process"]
class ProjectOrderSequencer extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const rank = (spec: TestSpecification) => {
      const at = projectOrder.indexOf(spec.project.name)
      return at === -1 ? projectOrder.length : at
    }
    // Array.prototype.sort is stable: each project keeps vitest's order inside it.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}

export default defineConfig({
  test: {
    // Node 24 flags the Web Crypto features the verifier tests probe as experimental; the
    // warning says nothing about the project, so keep `npm test` quiet.
    execArgv: ["--disable-warning=ExperimentalWarning"],
    // One throwaway PostgreSQL cluster per run; tests take its URL with inject("databaseAdminUrl").
    // The reference server bundled once for the tests that start it as a child process.
    globalSetup: ["test/support/postgres-global-setup.ts", "test/support/server-global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    maxWorkers,
    sequence: { sequencer: ProjectOrderSequencer },
    projects: [
      {
        extends: true,
        test: { name: "in-process", include: ["test/**/*.test.ts"], exclude: [postgresDir, isolatedDir], isolate: false }
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: [`${postgresDir}/*.test.ts`],
          isolate: false,
          env: { PAYMENTS_TEST_STORE: "postgres" }
        }
      },
      {
        extends: true,
        test: { name: "isolated", include: [`${isolatedDir}/*.test.ts`], isolate: true }
      }
    ]
  }
})
