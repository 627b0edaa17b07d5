/**
 * A source module bundled for a child process a test starts: `node --import tsx` would
 * transform and resolve every source module in each child (about 1.9 s of CPU for
 * src/adapters/sql/pglite.ts, against 0.5 s for its bundle), the cost
 * test/support/server-global-setup.ts avoids for the server. Packages stay in
 * node_modules; the bundle sits in .test-server/ (git ignores it) so they resolve, and is
 * removed when the file is done.
 */
import { randomUUID } from "node:crypto"
import { mkdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { build } from "esbuild"
import { afterAll } from "vitest"

const ROOT = join(import.meta.dirname, "..", "..")
const made: Array<string> = []
afterAll(() => {
  for (const file of made.splice(0)) rmSync(file, { force: true })
})

/** Bundles `source` (a path from the repository root) once; resolves with the bundle's absolute path. */
export const bundled = async (source: string): Promise<string> => {
  const dir = join(ROOT, ".test-server")
  mkdirSync(dir, { recursive: true })
  const outfile = join(dir, `module-${process.pid}-${randomUUID()}.mjs`)
  made.push(outfile)
  await build({
    entryPoints: [join(ROOT, source)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    packages: "external",
    logLevel: "warning"
  })
  return outfile
}
