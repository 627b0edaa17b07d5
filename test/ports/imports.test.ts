/**
 * The port modules import each other without a cycle: each aggregate's module imports
 * only the shared module (and the domain), and ./store.ts composes them.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const portsDir = fileURLToPath(new URL("../../src/ports/", import.meta.url))
const srcDir = fileURLToPath(new URL("../../src/", import.meta.url))

/** Every .ts file under `dir`, relative to src/. */
const sourcesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourcesUnder(join(dir, e.name)) : e.name.endsWith(".ts") ? [relative(srcDir, join(dir, e.name))] : []
  )

/** The src modules a source file imports or re-exports by a relative path (type-only ones included), relative to src/. */
const relativeImports = (file: string, source: string): ReadonlyArray<string> =>
  [...source.matchAll(/(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)\.js"/g)]
    .map((m) => relative(srcDir, resolve(dirname(join(srcDir, file)), `${m[1]}.ts`)))

/** The modules of src/ports a source file imports or re-exports (by file name). */
const portImports = (source: string): ReadonlyArray<string> =>
  [...source.matchAll(/(?:import|export)\s[^;]*?from\s+"\.\/([\w-]+)\.js"/g)].map((m) => `${m[1]}.ts`)

/** A cycle in the graph, as the path that closes it, or undefined. */
const findCycle = (graph: ReadonlyMap<string, ReadonlyArray<string>>): ReadonlyArray<string> | undefined => {
  const state = new Map<string, "open" | "done">()
  const visit = (node: string, path: ReadonlyArray<string>): ReadonlyArray<string> | undefined => {
    if (state.get(node) === "done") return undefined
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node]
    state.set(node, "open")
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next, [...path, node])
      if (cycle !== undefined) return cycle
    }
    state.set(node, "done")
    return undefined
  }
  for (const node of graph.keys()) {
    const cycle = visit(node, [])
    if (cycle !== undefined) return cycle
  }
  return undefined
}

describe("src/ports imports", () => {
  const files = readdirSync(portsDir).filter((f) => f.endsWith(".ts"))
  const graph = new Map(files.map((f) => [f, portImports(readFileSync(join(portsDir, f), "utf8"))]))

  it("reads the imports it checks", () => {
    expect(graph.get("store.ts")).toContain("customers.ts")
    expect(graph.get("customers.ts")).toEqual(["shared.ts"])
    expect(portImports(`import type { A } from "./a.js"\nexport * from "./b-c.js"\nexport type {\n  D\n} from "./d.js"`))
      .toEqual(["a.ts", "b-c.ts", "d.ts"])
  })

  it("finds a cycle when there is one (the check can fail)", () => {
    expect(findCycle(new Map([["a.ts", ["b.ts"]], ["b.ts", ["a.ts"]]]))).toEqual(["a.ts", "b.ts", "a.ts"])
    expect(findCycle(new Map([["a.ts", ["b.ts"]], ["b.ts", []]]))).toBeUndefined()
  })

  it("has no import cycle", () => {
    expect(findCycle(graph)).toBeUndefined()
  })

  it("src as a whole has no import cycle either", () => {
    const sources = sourcesUnder(srcDir)
    const whole = new Map(sources.map((f) => [f, relativeImports(f, readFileSync(join(srcDir, f), "utf8")).filter((m) => sources.includes(m))]))
    expect(whole.get("ports/store.ts")).toContain("ports/customers.ts")
    expect([...whole.values()].flat().length).toBeGreaterThan(sources.length)
    expect(findCycle(whole)).toBeUndefined()
  })

  it("keeps every port module under 300 lines", () => {
    const long = files.filter((f) => readFileSync(join(portsDir, f), "utf8").split("\n").length > 300)
    expect(long).toEqual([])
  })
})
