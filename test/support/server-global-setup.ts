/**
 * vitest globalSetup: the reference server (src/server/main.ts) bundled once per run, for
 * the tests that start it as a child process (test/support/server.ts).
 *
 * `node --import tsx src/server/main.ts` transforms and resolves every source module
 * through tsx's loader hooks in every child, which took most of each start (about 2.5 s
 * of CPU on a quiet 2-core machine, against about 1 s for a bundle of the sources). The
 * bundle is the same sources compiled by esbuild (what tsx itself runs) into one module
 * beside the sources, in `.test-server/` (git ignores it), with the packages they import
 * in it too: resolving and reading the thousands of modules of effect and the other
 * packages one by one was half of what was left of a start (0.7 s of CPU for a start
 * that stops at a configuration error, against 1.4 s with the packages left in
 * node_modules, under the same load). PGlite stays in node_modules (it finds its
 * WebAssembly files beside its own modules). The paths the server finds from its own
 * location (package.json above it, the dashboard's files under ../src/http/dashboard/)
 * resolve as from dist/.
 *
 * The source map is written beside the bundle, not read by default: mapping stack traces
 * (node --enable-source-maps) reads it at every start, about 0.3 s of CPU each. To see a
 * child's stack traces in terms of src/, run the tests with
 * NODE_OPTIONS=--enable-source-maps (the children inherit it).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { build } from "esbuild"
import { pgliteTemplate } from "../../src/adapters/sql/index.js"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** The bundled server's entry module (an absolute path), to run with `node <entry>`. */
    serverEntry: string
    /** A migrated PGlite dump on disk: child servers' new data directories start from it (PAYMENTS_PGLITE_TEMPLATE). */
    pgliteTemplateFile: string
  }
}

const ROOT = join(import.meta.dirname, "..", "..")

/** One bundle and one dump for the whole run, however many projects ask; removed when the last is done. */
let shared: { entry: Promise<string>; template: Promise<string>; users: number } | undefined

/**
 * The migrations applied once on an in-memory PGlite, its data directory dumped to a
 * file: a child server given it (PAYMENTS_PGLITE_TEMPLATE) starts a new data directory
 * from it instead of migrating an empty one (most of a PGlite start). The migrations on
 * empty databases are tested where that is the point (test/adapters/migrations.test.ts,
 * the data-directory suites, which start without it).
 */
const dumpTemplate = async (): Promise<string> => {
  const dir = join(ROOT, ".test-server")
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `pglite-template-${process.pid}.tar.gz`)
  const blob = await Effect.runPromise(pgliteTemplate)
  writeFileSync(file, Buffer.from(await blob.arrayBuffer()))
  return file
}

const bundle = async (): Promise<string> => {
  const dir = join(ROOT, ".test-server")
  mkdirSync(dir, { recursive: true })
  // A name of its own per run: two runs in one checkout never read each other's half-written file.
  const entry = join(dir, `main-${process.pid}.mjs`)
  await build({
    entryPoints: [join(ROOT, "src/server/main.ts")],
    outfile: entry,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    external: ["@electric-sql/pglite", "@electric-sql/pglite/*"],
    // The CommonJS packages bundled in (pg and its helpers) call require for Node's modules.
    banner: { js: "import { createRequire as __bundleRequire } from \"node:module\"; const require = __bundleRequire(import.meta.url);" },
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "warning"
  })
  return entry
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (shared === undefined) shared = { entry: bundle(), template: dumpTemplate(), users: 0 }
  const run = shared
  run.users++
  const [entry, template] = await Promise.all([run.entry, run.template])
  project.provide("serverEntry", entry)
  project.provide("pgliteTemplateFile", template)
  return async () => {
    if (--run.users === 0) {
      shared = undefined
      rmSync(entry, { force: true })
      rmSync(`${entry}.map`, { force: true })
      rmSync(template, { force: true })
    }
  }
}
